import { OFFLINE_MODEL } from '../../agent-runtime/usage';
import { analyzeWithModel, type ModelEndpoint } from './model-analyzer';
import { analyzeOffline } from './offline-analyzer';
import { skipReason } from './skip-rules';
import type { AnalysisUsage, CallForAnalysis, NodeAnalysis, QaAnnotation, QaSettings, TypedAnalysis } from './types';

/** The analysis results a run's `annotations` receive. */
export interface AnalysisAnnotations {
  /** `qa_<node id>`: each enabled QA node's result, skip or error. */
  [qaKey: `qa_${string}`]: QaAnnotation;
  /** Every tag the nodes gave, once each. */
  tags: string[];
  /** The typed fields and the success evaluation; absent when no node analysed the call. */
  analysis?: TypedAnalysis;
}

export interface CallAnalysis {
  annotations: AnalysisAnnotations;
  /** Tokens by model (none offline). */
  usage: AnalysisUsage[];
}

export interface AnalyzeDeps {
  /** The model a node asks; null: the offline analyzer. Throws when the node's model cannot be asked. */
  endpointFor: (settings: QaSettings) => Promise<ModelEndpoint | null>;
  now?: () => Date;
}

/**
 * Analyses one finished call with each enabled QA node of its agent, one after the other: skip
 * rules first, then the node's model, or the offline analyzer when it has none.
 */
export async function analyzeCall(
  call: CallForAnalysis,
  nodes: QaSettings[],
  deps: AnalyzeDeps,
): Promise<CallAnalysis> {
  const now = deps.now ?? (() => new Date());
  const annotations: AnalysisAnnotations = { tags: [] };
  const usage = new Map<string, AnalysisUsage>();
  const analysed: NodeAnalysis[] = [];
  for (const settings of nodes.filter((node) => node.enabled)) {
    const key = `qa_${settings.nodeId}` as const;
    const reason = skipReason(call, settings);
    if (reason) {
      annotations[key] = { skipped: true, reason };
      continue;
    }
    let endpoint: ModelEndpoint | null;
    try {
      endpoint = await deps.endpointFor(settings);
    } catch (error) {
      // The node's model cannot be asked (a refused address, a credential gone): its error, not the call's.
      annotations[key] = { error: (error as Error).message, model: settings.model ?? 'unknown' };
      continue;
    }
    if (!endpoint) {
      const offline = analyzeOffline(call, settings, now());
      annotations[key] = offline.result;
      analysed.push(offline);
      continue;
    }
    const outcome = await analyzeWithModel(call, settings, endpoint, now());
    addUsage(usage, outcome.usage);
    if ('error' in outcome.analysis) {
      annotations[key] = { error: outcome.analysis.error, model: endpoint.model };
      continue;
    }
    annotations[key] = outcome.analysis.result;
    analysed.push(outcome.analysis);
  }
  annotations.tags = [...new Set(analysed.flatMap((node) => node.result.tags.map((tag) => tag.tag)))];
  const typed = typedAnalysis(analysed, nodes);
  if (typed) annotations.analysis = typed;
  return { annotations, usage: [...usage.values()].filter((entry) => entry.totalTokens > 0) };
}

function addUsage(usage: Map<string, AnalysisUsage>, add: AnalysisUsage): void {
  const entry = usage.get(add.model) ?? { model: add.model, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  entry.promptTokens += add.promptTokens;
  entry.completionTokens += add.completionTokens;
  entry.totalTokens += add.totalTokens;
  usage.set(add.model, entry);
}

/** The nodes' typed fields (the first node to give a field wins) and the first success evaluation. */
function typedAnalysis(analysed: NodeAnalysis[], nodes: QaSettings[]): TypedAnalysis | undefined {
  if (analysed.length === 0) return undefined;
  const types = new Map(
    nodes.flatMap((node) => node.fields.map((field) => [field.name, field.type] as const)).reverse(),
  );
  const fields: TypedAnalysis['fields'] = {};
  for (const node of analysed) {
    for (const [name, value] of Object.entries(node.fields)) {
      const type = types.get(name);
      if (type && !(name in fields)) fields[name] = { type, value };
    }
  }
  const success = analysed.find((node) => node.success)?.success;
  const models = [...new Set(analysed.map((node) => node.result.model))];
  const score = analysed.reduce((sum, node) => sum + node.result.score, 0) / analysed.length;
  return {
    fields,
    ...(success ? { success } : {}),
    score: Math.round(score * 10) / 10,
    sentiment: (analysed[0] as NodeAnalysis).result.overall_sentiment,
    model: models.join(', ') || OFFLINE_MODEL,
  };
}
