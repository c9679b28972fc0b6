import type { ConversationParty } from './party';
import type { ConversationTools, ToolCallLog, TransferRequest } from './tools';

/**
 * What the call workflow asks of the conversation engine, and what it gets back. The engine walks
 * an agent's graph turn by turn against the other party: the simulator's text-only callee, or a
 * person on a live call (`voice/pipeline`, which passes itself as `ConversationDeps.party`).
 */

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model: string;
}

/**
 * The other side of the call: the simulator's text-only callee, or a live call or a text chat (both
 * given as `ConversationDeps.party`).
 */
export type Callee = { kind: 'simulated'; talkSeconds: number } | { kind: 'live' } | { kind: 'text' };

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
  /** Carries on a conversation that stopped for a transfer that did not connect. */
  resume?: ConversationResume;
}

/** A conversation that stopped for a transfer, and why the transfer did not connect. */
export interface ConversationResume {
  /** The conversation as it stopped (`endedBy: 'transfer'`). */
  previous: ConversationResult;
  /** Told to the model as the transfer tool's result (`transfer_failed: ...`). */
  transferFailed: string;
  /** Transfers tried in this call so far: past MAX_TRANSFER_ATTEMPTS the tools are no longer offered. */
  attempts: number;
}

export interface TranscriptLine {
  /** ISO time the utterance began. */
  at: string;
  role: 'user' | 'assistant';
  text: string;
  /** Live calls: seconds from the start of the call's media stream (and recording) to the utterance's start and end. */
  start?: number;
  end?: number;
}

/**
 * One turn of a live call, in milliseconds: from the caller's end of speech (as the voice activity
 * detector declared it) to the first byte of the agent's audio sent to the provider (`total`),
 * split into the waits on speech-to-text (`stt`, from asking for the final words, which the pipeline
 * does when its voice activity detector declares the end of speech, to the final transcript), the language
 * model (`llm`, request to first token) and text-to-speech (`tts`, first sentence to first audio),
 * and Switchboard's own share (`overhead`, the rest). `endpointing` is the silence the detector
 * waited for before declaring the end of speech; it comes before `total` and is not part of it.
 */
export interface TurnLatency {
  turn: number;
  endpointing: number;
  stt: number;
  llm: number;
  tts: number;
  overhead: number;
  total: number;
}

export interface ConversationUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A tool call in the stored transcript, where it happened; the policies' history leaves it out. */
export interface ToolTranscriptEvent {
  /** ISO time the call started. */
  at: string;
  role: 'tool';
  /** `function(arguments) → ok 200`, short. */
  text: string;
  /** Its `sequence` in `logs.tool_calls`. */
  tool_call: number;
}

/** What the run's transcript keeps: what was said, and the tool calls between. */
export type TranscriptEntry = TranscriptLine | ToolTranscriptEvent;

export interface ConversationResult {
  /** What was said and the tool calls made, in time order. */
  transcript: TranscriptEntry[];
  /** Extracted variables, merged into the run's `gathered_context`. */
  gatheredContext: Record<string, unknown>;
  /** `gathered_context.mapped_call_disposition` of a connected call. */
  disposition: string;
  /**
   * Reported by `voice/pipeline`, never by the engine: `error`, a live call's pipeline broke down;
   * `voicemail`, a machine answered and the agent's voicemail message was played to its end.
   */
  endedBy: 'end_node' | 'max_duration' | 'callee_hangup' | 'user_idle' | 'error' | 'voicemail' | 'transfer';
  /** Node ids in the order the conversation visited them. */
  nodePath: string[];
  usage: ConversationUsage;
  /** Seconds from the first utterance to the end of the call (simulated: capped at the limit that ended it). */
  durationSeconds?: number;
  /** Live calls: the latency of each answered turn. */
  turnLatency?: TurnLatency[];
  /**
   * The callee asked not to be called again: they said so (`phrase`) or the conversation reached an
   * end node with `opt_out` (`node`). Their number goes on the organization's do-not-call list.
   */
  optOut?: 'phrase' | 'node';
  /** Every tool call the agent made, in order (`logs.tool_calls`). */
  toolCalls?: ToolCallLog[];
  /** With `endedBy: 'transfer'`: the transfer the agent asked for; the call workflow carries it out. */
  transfer?: TransferRequest;
}

export interface ConversationDeps {
  /** Unset: the deterministic offline policy. */
  llm?: LlmSettings;
  now?: () => Date;
  /** A live call; unset: the simulated callee of `input.callee`. */
  party?: ConversationParty;
  /** The agent's tools; unset: nodes' tools are not offered. */
  tools?: ConversationTools;
  /** A paused conversation to continue (`converseStep`); unset: from the start node. */
  resume?: ConversationCheckpoint;
}

/**
 * Where a paused conversation stands: waiting for the other party's next words in `nodeId`, with
 * everything said, gathered, called and spent so far. Plain data: a workflow keeps it between turns.
 */
export interface ConversationCheckpoint {
  nodeId: string;
  calleeRepliesInNode: number;
  /** Agent turns taken so far (bounded by `MAX_TURNS`). */
  turns: number;
  transcript: TranscriptLine[];
  gatheredContext: Record<string, unknown>;
  nodePath: string[];
  toolCalls: ToolCallLog[];
  usage: ConversationUsage;
  optOut?: 'phrase' | 'node';
}

/** A walk that paused for the other party, or the conversation's end. */
export type ConversationStep = { paused: ConversationCheckpoint } | { ended: ConversationResult };

export type Converse = (input: ConversationInput, deps: ConversationDeps) => Promise<ConversationResult>;
