import type { DataSource } from 'typeorm';
import type { LlmSettings } from '../../agent-runtime/contract';
import { openSecret } from '../agents/agent-secrets';
import type { AgentVersionCache } from '../agents/version-cache';
import { analyzeCall } from './analyze-call';
import type { ModelEndpoint } from './model-analyzer';
import { enabledQaSettingsOf, visitedNodesOf } from './qa-settings';
import { RunAnalysisStore, type AnalysisRunInfo } from './run-analysis-store';
import type { QaSettings } from './types';
import { credentialHeaders } from '../credentials/credential-types';
import { openCredential } from '../credentials/credentials';
import type { Prices } from '../runs/run-queries';
import type { Secrets } from '../../telephony/secrets';
import type { CampaignCallAnalysis } from '../../workflows/definitions';
import { checkedAddress, type Resolver } from '../../platform/address-guard';

export interface RunAnalysisDeps {
  dataSource: DataSource;
  versions: AgentVersionCache;
  /** Opens a node's sealed key and the organization's credentials. */
  secrets: Secrets;
  /** The platform's language model (`LLM_*`); unset: nodes that use it are analysed offline. */
  llm?: LlmSettings;
  prices: Prices;
  /** How long one model request may take (default 60 s). */
  modelTimeoutMs?: number;
  /** `ALLOW_PRIVATE_WEBHOOKS`: a QA node's own endpoint may be a private address too. */
  allowPrivate: boolean;
  /** DNS, replaceable in tests; the system resolver by default. */
  resolve?: Resolver;
  /** Where a saved analysis is logged (the activity's logger). */
  log?: { info(message: string, attributes: Record<string, unknown>): void };
}

export interface AnalyzeRunInput {
  runId: number;
  /** `call` after the call, with the run's own agent version; a rerun's id, with the agent's current version. */
  analysisId: string;
}

export interface AnalyzeRunResult {
  /** False: the run has no enabled QA node, is not finished, or already has this analysis. */
  analyzed: boolean;
  totalTokens: number;
  /** What the analysis said, in short, for the run's campaign (when a node analysed the call). */
  summary?: CampaignCallAnalysis['summary'];
}

/** Tags a campaign hears of per call. */
const SUMMARY_TAGS = 10;

/** The base URLs of the providers a QA node names, when it gives no endpoint of its own. */
const PROVIDER_URLS: Record<NonNullable<QaSettings['provider']>, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  anthropic: 'https://api.anthropic.com/v1',
  // Azure deployments are per resource: the node's endpoint says where.
  azure: undefined,
};

/** Post-call analysis of a finished run by its agent's QA nodes, model or offline. */
export function createRunAnalysis({
  dataSource,
  versions,
  secrets,
  llm,
  prices,
  modelTimeoutMs,
  allowPrivate,
  resolve,
  log,
}: RunAnalysisDeps) {
  const store = new RunAnalysisStore(dataSource, prices);

  /** The model a node asks, authenticated; null: the offline analyzer. */
  const endpointFor = async (organizationId: number, settings: QaSettings): Promise<ModelEndpoint | null> => {
    const timeout = modelTimeoutMs === undefined ? {} : { timeoutMs: modelTimeoutMs };
    if (settings.useWorkflowLlm) return llm ? { ...llm, ...timeout } : null;
    const baseUrl = settings.endpoint ?? (settings.provider ? PROVIDER_URLS[settings.provider] : undefined);
    const model = settings.model ?? llm?.model;
    if (!baseUrl || !model) return null;
    // A tenant's endpoint is checked as a webhook's is: no private addresses unless the operator allows them.
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new Error(`The QA node's endpoint is not a URL: ${baseUrl}`);
    }
    await checkedAddress(url.hostname, { allowPrivate, allowSetting: 'ALLOW_PRIVATE_WEBHOOKS', resolve });
    const credential = settings.credentialUuid
      ? await openCredential(dataSource, secrets, organizationId, settings.credentialUuid)
      : null;
    if (settings.credentialUuid && !credential) {
      throw new Error(`Credential ${settings.credentialUuid} no longer exists in the organization`);
    }
    const apiKey = settings.sealedApiKey ? openSecret(settings.sealedApiKey, secrets) : undefined;
    return {
      baseUrl,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...(credential ? { headers: credentialHeaders(credential) } : {}),
      ...timeout,
    };
  };

  return {
    /**
     * Analyses a finished run with the QA nodes of its agent version (a rerun: the agent's current
     * version) and writes the results to its annotations, the tokens to its usage. Model failures
     * are recorded per node; only the database's failures throw, and a retry repeats nothing.
     */
    async analyze({ runId, analysisId }: AnalyzeRunInput): Promise<AnalyzeRunResult> {
      const run = await store.load(runId);
      if (!run) return { analyzed: false, totalTokens: 0 };
      if (run.appliedIds.includes(analysisId)) return { analyzed: false, totalTokens: 0 };
      const trigger = analysisId === 'call' ? 'call' : 'rerun';
      const versionId = trigger === 'rerun' ? (run.currentVersionId ?? run.agentVersionId) : run.agentVersionId;
      const definition = (await versions.get(versionId)).workflowDefinition;
      const nodes = enabledQaSettingsOf(definition);
      if (nodes.length === 0) return { analyzed: false, totalTokens: 0 };
      const { nodePath, ...call } = run.call;
      const { annotations, usage } = await analyzeCall(
        { ...call, visited: visitedNodesOf(definition, nodePath) },
        nodes,
        {
          endpointFor: (settings) => endpointFor(run.organizationId, settings),
        },
      );
      const totalTokens = usage.reduce((sum, entry) => sum + entry.totalTokens, 0);
      const info: AnalysisRunInfo = {
        id: analysisId,
        trigger,
        at: new Date().toISOString(),
        agent_version_id: versionId,
        total_tokens: totalTokens,
      };
      const saved = await store.save(runId, annotations, info, usage);
      if (saved) log?.info('run analysed', { runId, analysisId, tags: annotations.tags, totalTokens });
      if (!saved) return { analyzed: false, totalTokens: 0 };
      const { analysis } = annotations;
      const summary = analysis
        ? {
            successful: analysis.success?.successful ?? null,
            sentiment: analysis.sentiment ?? null,
            tags: annotations.tags.slice(0, SUMMARY_TAGS),
          }
        : null;
      return { analyzed: true, totalTokens, summary };
    },
  };
}
