/**
 * What the call workflow asks of the conversation engine, and what it gets back. The engine walks
 * an agent's graph turn by turn against a callee: today a simulated one; a live audio transport
 * plugs in behind `Callee` later.
 */

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model: string;
}

/** The other side of the call. */
export type Callee = { kind: 'simulated'; talkSeconds: number };

export interface ConversationInput {
  runId: number;
  /** The agent version's `workflow_definition` (validated when it was saved). */
  definition: Record<string, unknown>;
  workflowConfigurations: Record<string, unknown>;
  templateContextVariables: Record<string, unknown>;
  /** The run's `initial_context` (request data, called/caller numbers, provider). */
  initialContext: Record<string, unknown>;
  /** The agent's `call_disposition_codes.disposition_codes`. */
  dispositionCodes: string[];
  /** From `workflow_configurations.max_call_duration`, default 300. */
  maxDurationSeconds: number;
  callee: Callee;
}

export interface TranscriptLine {
  /** ISO time of the utterance. */
  at: string;
  role: 'user' | 'assistant';
  text: string;
}

export interface ConversationUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ConversationResult {
  transcript: TranscriptLine[];
  /** Extracted variables, merged into the run's `gathered_context`. */
  gatheredContext: Record<string, unknown>;
  /** `gathered_context.mapped_call_disposition` of a connected call. */
  disposition: string;
  endedBy: 'end_node' | 'max_duration' | 'callee_hangup';
  /** Node ids in the order the conversation visited them. */
  nodePath: string[];
  usage: ConversationUsage;
  /** Simulated seconds from the first utterance to the end of the call (capped at the limit that ended it). */
  durationSeconds?: number;
}

export interface ConversationDeps {
  /** Unset: the deterministic offline policy. */
  llm?: LlmSettings;
  now?: () => Date;
}

export type Converse = (input: ConversationInput, deps: ConversationDeps) => Promise<ConversationResult>;
