import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { ConversationResult, Converse } from '../agent-runtime/contract';
import { conversationInput } from '../agent-runtime/conversation-input';
import { Run, TelephonyConfiguration } from '../entities';
import { loadConversationSource } from '../api/services/calls/conversation-source';
import { chargeUsd } from '../api/services/runs/run-queries';
import { openCredentials } from '../telephony/credentials';
import { ProviderError, type StatusEvent, type TelephonyProvider } from '../telephony/provider';
import { providerFor } from '../telephony/registry';
import type { Secrets } from '../telephony/secrets';
import type { CallStatusUpdate, TerminalCallStatus } from '../workflows/definitions';
import { CallSetupError, ProviderRefusedError } from './call-errors';
import { callUrls, transcriptUrl, type CallSettings } from './call-settings';

/** How often a running conversation heartbeats; the workflow's heartbeat timeout is a few times this. */
export const CONVERSATION_HEARTBEAT_MS = 5_000;

export interface CallActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: CallSettings;
  /** The conversation engine (`converse` of `agent-runtime`). */
  converse: Converse;
}

export interface PlaceCallInput {
  runId: number;
  workflowId: string;
  attempt: number;
}

export interface FinalizeRunInput {
  runId: number;
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** The conversation of a connected call; null otherwise. */
  conversation: ConversationResult | null;
}

const toUpdate = (event: StatusEvent): CallStatusUpdate => ({
  status: event.status,
  providerCallId: event.providerCallId,
  durationSeconds: event.durationSeconds,
});

export function createCallActivities({ dataSource, secrets, settings, converse }: CallActivityDeps) {
  const runs = dataSource.getRepository(Run);

  const loadRun = async (runId: number): Promise<Run> => {
    const run = await runs.findOneBy({ id: runId });
    if (!run) throw new CallSetupError(`Run ${runId} does not exist`);
    return run;
  };

  const configurationOf = async (run: Run): Promise<TelephonyConfiguration> => {
    const row = run.telephonyConfigurationId
      ? await dataSource.getRepository(TelephonyConfiguration).findOneBy({ id: run.telephonyConfigurationId })
      : null;
    if (!row) throw new CallSetupError(`Run ${run.id} has no telephony configuration`);
    return row;
  };

  const adapterOf = async (run: Run): Promise<TelephonyProvider> =>
    providerFor(await configurationOf(run), secrets, { apiBaseUrl: settings.telephonyApiBaseUrl, dataSource });

  /** How long the simulated callee talks: the simulator's `talk_seconds`, else the whole allowed duration. */
  const talkSecondsOf = (row: TelephonyConfiguration, maxDurationSeconds: number): number => {
    if (row.provider !== 'simulator') return maxDurationSeconds;
    const talk = openCredentials(row.credentials, secrets).talk_seconds;
    return typeof talk === 'number' ? talk : 3;
  };

  return {
    /**
     * Dials the run's number once per (workflow, attempt): the provider idempotency key is derived
     * from them, and when an earlier try already got a call id, the provider is asked about that
     * call before anything is dialed again (for providers without idempotency keys).
     */
    async placeCall({ runId, workflowId, attempt }: PlaceCallInput): Promise<{ providerCallId: string }> {
      const run = await loadRun(runId);
      if (!run.calledNumber) throw new CallSetupError(`Run ${runId} has no number to call`);
      const provider = await adapterOf(run);
      if (run.providerCallId && (await provider.getCallStatus(run.providerCallId))) {
        return { providerCallId: run.providerCallId };
      }
      try {
        const { providerCallId } = await provider.originate({
          runId,
          to: run.calledNumber,
          from: run.callerNumber,
          idempotencyKey: `${workflowId}:${attempt}`,
          ...callUrls(settings, run.mode, runId, secrets),
        });
        await runs.update({ id: runId }, { providerCallId, state: 'running' });
        return { providerCallId };
      } catch (error) {
        if (error instanceof ProviderError && !error.retryable) throw new ProviderRefusedError(error.message);
        throw error;
      }
    },

    /** The provider's view of the call; null when it does not know it. */
    async getCallStatus({ runId, providerCallId }: { runId: number; providerCallId: string }) {
      const event = await (await adapterOf(await loadRun(runId))).getCallStatus(providerCallId);
      return event ? toUpdate(event) : null;
    },

    /** Hangs the call up; a call the provider no longer knows is already over. */
    async hangupCall({ runId, providerCallId }: { runId: number; providerCallId: string }): Promise<void> {
      try {
        await (await adapterOf(await loadRun(runId))).hangup(providerCallId);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },

    /** Runs the agent's conversation with the callee of the connected call. */
    async runConversation({ runId, maxDurationSeconds }: { runId: number; maxDurationSeconds: number }) {
      const run = await loadRun(runId);
      const source = await loadConversationSource(dataSource, run);
      const configuration = await configurationOf(run);
      // Heartbeats tell Temporal this worker is alive, so a conversation lost with a killed worker is
      // retried after the heartbeat timeout rather than after max_call_duration. A local activity
      // has none: its workflow task times out with the worker instead.
      const context = Context.current();
      const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), CONVERSATION_HEARTBEAT_MS);
      try {
        const callee = { kind: 'simulated' as const, talkSeconds: talkSecondsOf(configuration, maxDurationSeconds) };
        return await converse(conversationInput(source, maxDurationSeconds, callee), { llm: settings.llm });
      } finally {
        clearInterval(beat);
      }
    },

    /** Writes the call's one outcome; a run already completed is left as it is. */
    async finalizeRun({ runId, callStatus, durationSeconds, conversation }: FinalizeRunInput): Promise<void> {
      const run = await loadRun(runId);
      if (run.isCompleted) return;
      const disposition = conversation && callStatus === 'completed' ? conversation.disposition : callStatus;
      const tokens = conversation?.usage.totalTokens ?? 0;
      const prices = { perMinuteUsd: settings.pricePerMinuteUsd, per1kTokensUsd: settings.pricePer1kTokensUsd };
      const charge = chargeUsd(durationSeconds, tokens, prices);
      await runs.update(
        { id: runId, isCompleted: false },
        {
          isCompleted: true,
          state: 'completed',
          callDurationSeconds: durationSeconds,
          platformTokenUsage: tokens,
          chargeUsd: charge,
          disposition,
          gatheredContext: {
            ...run.gatheredContext,
            ...(conversation?.gatheredContext ?? {}),
            call_status: callStatus,
            mapped_call_disposition: disposition,
          },
          logs: {
            ...run.logs,
            transcript: conversation?.transcript ?? [],
            ...(conversation ? { node_path: conversation.nodePath, ended_by: conversation.endedBy } : {}),
            ...(conversation?.turnLatency ? { turn_latency: conversation.turnLatency } : {}),
          },
          transcriptUrl: conversation ? transcriptUrl(run.workflowId, runId) : null,
          usageInfo: {
            call_duration_seconds: durationSeconds,
            ...(conversation
              ? {
                  llm: {
                    model: conversation.usage.model,
                    prompt_tokens: conversation.usage.promptTokens,
                    completion_tokens: conversation.usage.completionTokens,
                    total_tokens: conversation.usage.totalTokens,
                  },
                }
              : {}),
          },
          costInfo: {
            call_duration_seconds: durationSeconds,
            platform_token_usage: tokens,
            charge_usd: charge,
            price_per_minute_usd: prices.perMinuteUsd,
            price_per_1k_tokens_usd: prices.per1kTokensUsd,
          },
        },
      );
    },
  };
}
