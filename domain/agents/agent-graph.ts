import type { AnalysisField, AnalysisPreset, SuccessEvaluation } from '../analysis/types';

/**
 * An agent's conversation graph, a React Flow document, as the domain reads it once validated:
 * `nodes[]` and `edges[]`, with the editor's other keys kept. The API's request schema
 * (api/schemas/workflow-definition.ts) checks input against these shapes.
 */

interface PromptFields {
  name: string;
  /** May use `{{variables}}`. */
  prompt: string;
  allow_interrupt: boolean;
  /** Prepends the global node's prompt. */
  add_global_prompt: boolean;
}

interface ExtractionFields {
  extraction_enabled: boolean;
  extraction_prompt?: string;
  extraction_variables: { name: string; type: 'string' | 'number' | 'boolean'; prompt?: string }[];
}

interface ToolFields {
  tool_uuids?: string[];
  document_uuids?: string[];
}

interface Node<Type extends string, Data> {
  id: string;
  type: Type;
  position: { x: number; y: number };
  data: Data;
  [editorKey: string]: unknown;
}

export type StartCallNode = Node<
  'startCall',
  PromptFields &
    ExtractionFields &
    ToolFields & {
      greeting?: string;
      greeting_type: 'text' | 'audio';
      greeting_recording_id?: string;
      delayed_start: boolean;
      delayed_start_duration: number;
      pre_call_fetch_mode: 'disabled' | 'always' | 'inbound' | 'outbound';
      pre_call_fetch_url?: string;
      pre_call_fetch_credential_uuid?: string;
      mcp_tool_filters?: Record<string, unknown>;
    }
>;
export type AgentStepNode = Node<'agentNode', PromptFields & ExtractionFields & ToolFields>;
/** `opt_out`: reaching it lists the callee's number on the do-not-call list. */
export type EndCallNode = Node<'endCall', PromptFields & ExtractionFields & { opt_out?: boolean }>;
export type GlobalNode = Node<'globalNode', PromptFields>;
export type TriggerNode = Node<'trigger', { name: string; trigger_path?: string; enabled: boolean }>;
export type WebhookNode = Node<
  'webhook',
  {
    name: string;
    enabled: boolean;
    http_method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    endpoint_url: string;
    credential_uuid?: string;
    custom_headers: { key: string; value: string }[];
    /** May use `{{variables}}` in its strings. */
    payload_template: Record<string, unknown>;
  }
>;
export type QaNode = Node<
  'qa',
  {
    name: string;
    qa_enabled: boolean;
    qa_system_prompt?: string;
    qa_min_call_duration: number;
    qa_voicemail_calls: boolean;
    qa_sample_rate: number;
    qa_use_workflow_llm: boolean;
    qa_provider?: 'openai' | 'azure' | 'openrouter' | 'anthropic';
    qa_model?: string;
    qa_api_key?: string;
    qa_endpoint?: string;
    /** A credential of the organization that authenticates the node's model requests. */
    qa_credential_uuid?: string;
    /** Typed values extracted from every analysed call (`annotations.analysis.fields`). */
    analysis_fields: AnalysisField[];
    analysis_presets: AnalysisPreset[];
    success_evaluation?: SuccessEvaluation;
  }
>;

export type GraphNode = StartCallNode | AgentStepNode | EndCallNode | GlobalNode | TriggerNode | WebhookNode | QaNode;

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  data: {
    /** Becomes the LLM function name. */
    label: string;
    /** When to take the edge, judged by the LLM. */
    condition: string;
    transition_speech?: string;
    transition_speech_type?: 'text' | 'audio';
    transition_speech_recording_id?: string;
  };
  [editorKey: string]: unknown;
}

export interface AgentGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  [editorKey: string]: unknown;
}
