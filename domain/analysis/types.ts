import type { TranscriptLine, TurnLatency } from '../../agent-runtime/contract';

/**
 * What post-call analysis reads and writes. A QA node of an agent's graph says how a finished call
 * is analysed; the results go to the run's `annotations`: `qa_<node id>` per QA node, `tags`
 * across them, and `analysis` with the typed fields and the success evaluation.
 */

export type Sentiment = 'positive' | 'neutral' | 'negative';
export const SENTIMENTS: readonly Sentiment[] = ['positive', 'neutral', 'negative'];

export type AnalysisFieldType = 'string' | 'enum' | 'boolean' | 'number';

/** A typed value the analysis extracts from every call (Retell's post-call analysis data). */
export interface AnalysisField {
  name: string;
  type: AnalysisFieldType;
  description: string;
  examples?: string[];
  /** The values an `enum` field may take. */
  choices?: string[];
}

export const ANALYSIS_PRESETS = ['call_summary', 'call_successful', 'user_sentiment'] as const;
export type AnalysisPreset = (typeof ANALYSIS_PRESETS)[number];

/** How the call is judged against the node's criteria: passed or not, or a 1 to 10 scale. */
export interface SuccessEvaluation {
  rubric: 'pass_fail' | 'scale';
  criteria: string;
  /** On the scale, the lowest score that counts as a success (default 6). */
  threshold?: number;
}

/** A QA node's settings, as the analysis reads them off the agent's graph. */
export interface QaSettings {
  nodeId: string;
  name: string;
  enabled: boolean;
  systemPrompt?: string;
  minCallDurationSeconds: number;
  voicemailCalls: boolean;
  /** Percent of calls analysed, 0 to 100. */
  sampleRate: number;
  /** The platform's language model (`LLM_*` settings) rather than the node's own. */
  useWorkflowLlm: boolean;
  provider?: 'openai' | 'azure' | 'openrouter' | 'anthropic';
  model?: string;
  endpoint?: string;
  /** A credential of the organization whose headers authenticate the node's model requests. */
  credentialUuid?: string;
  /** The key stored on the node itself, sealed. */
  sealedApiKey?: string;
  fields: AnalysisField[];
  successEvaluation?: SuccessEvaluation;
}

/** A node of the conversation the call went through, as the QA prompt's `{node_summary}` describes it. */
export interface VisitedNode {
  id: string;
  name: string;
  prompt: string;
}

/** The finished call, as the analysis reads it from its run. */
export interface CallForAnalysis {
  runId: number;
  callStatus: string;
  disposition: string | null;
  durationSeconds: number;
  transcript: TranscriptLine[];
  /** The conversation nodes visited, in order. */
  visited: VisitedNode[];
  gatheredContext: Record<string, unknown>;
  endedBy?: string;
  /** A machine answered (the outcome is `voicemail`, or a voicemail message was left). */
  voicemail: boolean;
  turnLatency?: TurnLatency[];
  /** The summary of the caller's previous call with this agent, when there is one. */
  previousSummary?: string;
}

export interface QaTag {
  tag: string;
  reason: string;
}

/** `annotations.qa_<node id>` of an analysed call. */
export interface QaResult {
  summary: string;
  tags: QaTag[];
  /** 1 (poor) to 10 (excellent). */
  score: number;
  overall_sentiment: Sentiment;
  model: string;
  analyzed_at: string;
}

/** `annotations.qa_<node id>` of a call the node did not analyse. */
export interface QaSkipped {
  skipped: true;
  reason: 'voicemail_call' | 'call_too_short' | 'no_conversation' | 'not_sampled';
}

/** `annotations.qa_<node id>` of an analysis that failed (the model's answer or the request). */
export interface QaFailed {
  error: string;
  model: string;
}

export type QaAnnotation = QaResult | QaSkipped | QaFailed;

export type FieldValue = string | number | boolean | null;

/** `annotations.analysis.success`. */
export interface SuccessResult {
  rubric: SuccessEvaluation['rubric'];
  /** pass_fail: true or false; scale: 1 to 10. */
  value: boolean | number;
  successful: boolean;
  reason: string;
}

/** `annotations.analysis`: the typed fields with their types, and the success evaluation. */
export interface TypedAnalysis {
  fields: Record<string, { type: AnalysisFieldType; value: FieldValue }>;
  success?: SuccessResult;
  /** The mean of the analysing nodes' scores, to one decimal: what the runs lists filter on. */
  score: number;
  /** The first analysing node's `overall_sentiment`. */
  sentiment: Sentiment;
  model: string;
}

/** Tokens one analysis used, by model. */
export interface AnalysisUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** What one analyser concludes about one call for one QA node. */
export interface NodeAnalysis {
  result: QaResult;
  fields: Record<string, FieldValue>;
  success?: SuccessResult;
}
