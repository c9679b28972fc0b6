/** What a tool is, as stored and answered: the shapes the tools API takes and the engine runs. */

export const TOOL_TYPES = ['http_api', 'end_call', 'calculator', 'transfer_call'] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

export const TOOL_STATUSES = ['active', 'archived'] as const;
export type ToolStatusName = (typeof TOOL_STATUSES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const PARAMETER_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** A value the model fills when it calls the tool. */
export interface ToolParameter {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
}

/** A value Switchboard fills from the call's context (`{{initial_context.*}}`, `{{gathered_context.*}}`). */
export interface PresetParameter {
  name: string;
  type: ParameterType;
  value_template: string;
  required: boolean;
}

export const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_TIMEOUT_MS = 30_000;

export interface HttpApiConfig {
  method: HttpMethod;
  /** Templated with the parameters and the call's context; scheme and host are fixed at save. */
  url: string;
  headers: Record<string, string>;
  credential_uuid?: string;
  parameters: ToolParameter[];
  preset_parameters: PresetParameter[];
  /** JSON with `{{name}}` placeholders; absent: the parameters as one flat object. */
  body_template?: Record<string, unknown>;
  timeout_ms: number;
  /** Spoken to the caller before the request is sent. */
  customMessage?: string;
}

export interface EndCallConfig {
  messageType: 'none' | 'custom';
  customMessage?: string;
  /** The model must give a `reason`, which becomes the call's disposition. */
  endCallReason: boolean;
  endCallReasonDescription?: string;
}

export type CalculatorConfig = Record<string, never>;

export const TRANSFER_MODES = ['blind', 'warm'] as const;
export type TransferMode = (typeof TRANSFER_MODES)[number];

export const DESTINATION_SOURCES = ['static', 'dynamic', 'context_mapping'] as const;
export type DestinationSource = (typeof DESTINATION_SOURCES)[number];

export const MIN_TRANSFER_RING_SECONDS = 5;
export const MAX_TRANSFER_RING_SECONDS = 120;
export const DEFAULT_TRANSFER_RING_SECONDS = 30;

/** One rule of a `context_mapping` transfer: the first whose context value matches picks the destination. */
export interface TransferRule {
  /** `initial_context.<key>` or `gathered_context.<key>`. */
  context_path: string;
  /** Compared with the context value as text, ignoring case and surrounding spaces. */
  equals: string;
  destination: string;
}

export interface TransferCallConfig {
  destination_source: DestinationSource;
  /** `static`: an E.164 number or SIP URI, templated with the call's context. */
  destination?: string;
  /** `dynamic`: the destinations the model may pass. */
  allowed_destinations?: string[];
  /** `context_mapping`: tried in order; `fallback_destination` when none matches. */
  rules?: TransferRule[];
  fallback_destination?: string;
  ring_timeout_seconds: number;
  /** Said to the caller before the transfer starts. */
  message?: string;
  mode: TransferMode;
  /**
   * Warm transfers: what the person hears when they answer, before the caller is joined (a template
   * over the call's context); absent: a summary of the call made from its transcript.
   */
  warm_message?: string;
}

export type ToolDefinition =
  | { schema_version: 1; type: 'http_api'; config: HttpApiConfig }
  | { schema_version: 1; type: 'end_call'; config: EndCallConfig }
  | { schema_version: 1; type: 'calculator'; config: CalculatorConfig }
  | { schema_version: 1; type: 'transfer_call'; config: TransferCallConfig };

export interface ToolView {
  tool_uuid: string;
  name: string;
  description: string;
  category: ToolType;
  status: ToolStatusName;
  definition: ToolDefinition;
  created_at: string;
  updated_at: string;
}

export interface ToolChanges {
  name: string;
  description: string;
  definition: ToolDefinition;
}

/** The retrieval Switchboard offers at a node with `document_uuids`: not a stored tool. */
export interface KnowledgeBaseDefinition {
  schema_version: 1;
  type: 'knowledge_base';
  config: { document_uuids: string[] };
}

/** A function the model may call: a tool of the node, as the language model sees it. */
export interface ToolFunction {
  /** The stored tool's uuid; `knowledge_base` for the knowledge base's retrieval. */
  toolUuid: string;
  /** The tool's name made a function name (lower-cased, anything but `[a-z0-9_]` as `_`). */
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  definition: ToolDefinition | KnowledgeBaseDefinition;
}
