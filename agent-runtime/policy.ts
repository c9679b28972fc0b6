import type { ConversationResult, TranscriptEntry, TranscriptLine } from './contract';
import type { ConversationEdge, ConversationNode, ExtractionVariable } from './graph';
import type { SpeechSink } from './party';
import type { ToolFunction, ToolSession } from './tools';
import type { UsageMeter } from './usage';

/** An outgoing edge as the agent sees it: its function name and rendered condition. */
export interface EdgeChoice {
  edge: ConversationEdge;
  functionName: string;
  condition: string;
  /** The edge leads to an opt-out end node. */
  optOut: boolean;
}

export interface TurnRequest {
  node: ConversationNode;
  /** The global prompt (when the node adds it) followed by the node's rendered prompt. */
  systemPrompt: string;
  /** The node's rendered prompt alone. */
  nodePrompt: string;
  edges: EdgeChoice[];
  /** The whole conversation so far. */
  history: TranscriptLine[];
  /** How many times the callee has spoken since the agent entered this node. */
  calleeRepliesInNode: number;
  /** The callee has asked not to be called again. */
  optOutHeard: boolean;
  /** The node's tools, as functions the agent may call. */
  tools: ToolFunction[];
  /** The rendered context, for a policy that fills tool arguments from it (the offline policy). */
  context: Record<string, unknown>;
  /** What happened outside the conversation that the agent must act on first (`transfer_failed: busy`). */
  notice?: string;
}

/** What the agent does on its turn: say something, take an edge, or both (speech first). */
export interface TurnDecision {
  say?: string;
  edge?: ConversationEdge;
}

export interface ExtractionRequest {
  node: ConversationNode;
  variables: ExtractionVariable[];
  /** The node's rendered `extraction_prompt`, if any. */
  instructions?: string;
  history: TranscriptLine[];
  initialContext: Record<string, unknown>;
}

/**
 * The agent's brain: the language model, or the deterministic offline policy. What the agent says
 * goes to the speech sink (sentence by sentence as it is produced when the sink is streaming, else
 * at once) and is also returned.
 */
export interface Policy {
  readonly usage: UsageMeter;
  /** One turn at a node that has outgoing edges; `tools` runs the node's tools. */
  turn(request: TurnRequest, speech: SpeechSink, tools?: ToolSession): Promise<TurnDecision>;
  /** The last words at an end node (or a node with no way out); empty for silence. */
  closing(request: TurnRequest, speech: SpeechSink): Promise<string>;
  /** Values for a node's extraction variables (null when unknown). */
  extract(request: ExtractionRequest): Promise<Record<string, unknown>>;
  /**
   * What the person a warm transfer reaches hears before the caller is joined: a sentence or two
   * about the call so far. Never fails: without a usable answer, the summary built from the
   * conversation alone (`transferSummary`).
   */
  transferSummary(history: TranscriptLine[], gathered: Record<string, unknown>): Promise<string>;
  /** One of `codes` (never called with none). */
  dispose(codes: string[], history: TranscriptLine[], endedBy: ConversationResult['endedBy']): Promise<string>;
}

/** A value made to fit a variable's declared type; null when it cannot. */
export function coerce(value: unknown, type: ExtractionVariable['type']): string | number | boolean | null {
  if (value === undefined || value === null || value === '') return null;
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : (JSON.stringify(value) ?? null);
    case 'number': {
      const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
      return Number.isFinite(number) ? number : null;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'yes' || value === 1) return true;
      if (value === 'false' || value === 'no' || value === 0) return false;
      return null;
  }
}

/** `[timestamp] role: text` lines, as stored at the run's transcript_url. */
export const formatTranscript = (lines: readonly Pick<TranscriptEntry, 'at' | 'role' | 'text'>[]): string =>
  lines.map((line) => `[${line.at}] ${line.role}: ${line.text}\n`).join('');
