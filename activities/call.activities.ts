import { loadConversationTools } from '../domain/tools/conversation-tools';
import { createToolRunnerDeps } from '../domain/tools/tool-runner-deps';
import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { ConversationResult, ConversationResume, Converse } from '../agent-runtime/contract';
import { conversationInput } from '../agent-runtime/conversation-input';
import type { AgentVersionCache } from '../domain/agents/version-cache';
import { conversationSourceOf } from '../domain/calls/conversation-source';
import { listOptOut } from '../domain/compliance/do-not-call';
import { chargeUsd } from '../domain/runs/run-queries';
import { enabledQaSettingsOf } from '../domain/analysis/qa-settings';
import { openCredentials } from '../telephony/credentials';
import {
  ProviderError,
  type StatusEvent,
  type TelephonyProvider,
  type TelephonyTransfer,
  type TransferMode,
} from '../telephony/provider';
import { ariEndpointPolicy } from '../telephony/providers/ari/endpoint';
import { createWebProvider } from '../telephony/providers/web/adapter';
import { WEB_PROVIDER } from '../telephony/providers/web/web-calls';
import { providerDefinition, providerFor } from '../telephony/registry';
import type { Secrets } from '../telephony/secrets';
import { maskPhoneNumber } from '../platform/log-redaction';
import { holdAudioUrl, transferCallbackUrl } from '../telephony/inbound';
import { VOICEMAIL_CHANNEL, voicemailPayload } from '../voice/pipeline/voicemail-requests';
import { renderTemplate } from '../domain/agents/templates';
import {
  callDisposition,
  type CallStatusUpdate,
  type RunTransfer,
  type TerminalCallStatus,
  type TransferStatusUpdate,
  type VoicemailMessage,
} from '../workflows/definitions';
import { CallSetupError, ProviderRefusedError } from './call-errors';
import { createCallRecords, type CallRecord } from './call-records';
import { createNotificationRepository } from '../entities/repositories/notification.repository';
import { callUrls, type CallSettings } from '../domain/calls/call-settings';
import { createDialPacing } from './pacing/dial-pacing';
import { postCallWebhooksOf, type PostCallWebhook } from '../domain/webhooks/post-call-nodes';

/** Speaking rate used to time a voicemail message (words per second of synthesized speech). */
const VOICEMAIL_WORDS_PER_SECOND = 2.5;

/** How often a running conversation heartbeats; the workflow's heartbeat timeout is a few times this. */
export const CONVERSATION_HEARTBEAT_MS = 5_000;

export interface CallActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: CallSettings;
  /** The conversation engine (`converse` of `agent-runtime`). */
  converse: Converse;
  /** Agent version contents, read once per process. */
  versions: AgentVersionCache;
}

export interface PlaceCallInput {
  runId: number;
  workflowId: string;
  attempt: number;
}

/** The dial went out; or it must wait `waitMs` for its configuration's pace (or a provider's 429). */
export type PlacedCall = { providerCallId: string } | { waitMs: number; throttled: boolean };

/** How long a provider's 429 holds the configuration's dials when it sends no `Retry-After`. */
export const DEFAULT_THROTTLE_SECONDS = 1;

export interface FinalizeRunInput {
  runId: number;
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** The conversation of a connected call; null otherwise. */
  conversation: ConversationResult | null;
  /** The voicemail message left on a machine that answered. */
  voicemail?: VoicemailMessage;
  /** The call's transfer attempts, oldest first. */
  transfers?: RunTransfer[];
}

export interface StartTransferInput {
  runId: number;
  providerCallId: string;
  destination: string;
  mode: TransferMode;
  /** Warm transfers: the summary the person hears before the caller is joined. */
  announcement?: string;
  ringTimeoutSeconds: number;
  idempotencyKey: string;
}

/** The transfer rings; or the provider refused it, and why (the model is told). */
export type StartedTransfer = { transferId: string } | { refused: string };

export interface TransferLookup {
  runId: number;
  providerCallId: string;
  transferId: string;
}

export interface FinalizedRun {
  /** The enabled webhook nodes of the run's agent version. */
  postCallWebhooks: PostCallWebhook[];
  /** The run's agent version has an enabled QA node: the call is analysed once concluded. */
  analyze?: boolean;
}

const toUpdate = (event: StatusEvent): CallStatusUpdate => ({
  status: event.status,
  providerCallId: event.providerCallId,
  durationSeconds: event.durationSeconds,
  ...(event.answeredBy ? { answeredBy: event.answeredBy } : {}),
});

export function createCallActivities({ dataSource, secrets, settings, converse, versions }: CallActivityDeps) {
  const records = createCallRecords(dataSource);
  const notifications = createNotificationRepository(dataSource);
  const toolDeps = createToolRunnerDeps({
    dataSource,
    secrets,
    config: { ALLOW_PRIVATE_WEBHOOKS: settings.allowPrivateWebhooks ?? false },
  });
  const conversationTools = (run: CallRecord, definition: Record<string, unknown>) =>
    loadConversationTools(dataSource, toolDeps, run, definition);
  const pacing = createDialPacing(dataSource);

  /** The configuration's dials per second: its own, else its provider's default; null: not paced. */
  const callsPerSecondOf = (run: CallRecord): number | null => {
    if (!run.configuration) return null;
    return run.configuration.callsPerSecond ?? providerDefinition(run.provider)?.defaultCallsPerSecond ?? null;
  };

  const webCalls = createWebProvider(dataSource);
  const adapterOf = (run: CallRecord): TelephonyProvider => {
    // A call from a browser has no telephony configuration: it is ours end to end.
    if (run.provider === WEB_PROVIDER) return webCalls;
    if (!run.configuration) throw new CallSetupError(`Run ${run.id} has no telephony configuration`);
    return providerFor(run.configuration, secrets, {
      apiBaseUrl: settings.telephonyApiBaseUrl,
      dataSource,
      endpointPolicy: ariEndpointPolicy(settings.allowPrivateAriEndpoints ?? false),
    });
  };

  const transferOf = (provider: TelephonyProvider): TelephonyTransfer => {
    if (!provider.transfer) throw new ProviderRefusedError('this telephony provider cannot transfer calls');
    return provider.transfer;
  };

  /** How long the simulated callee talks: the simulator's `talk_seconds`, else the whole allowed duration. */
  const talkSecondsOf = (run: CallRecord, maxDurationSeconds: number): number => {
    if (run.configuration?.provider !== 'simulator') return maxDurationSeconds;
    const talk = openCredentials(run.configuration.credentials, secrets).talk_seconds;
    return typeof talk === 'number' ? talk : 3;
  };

  return {
    /**
     * Dials the run's number once per (workflow, attempt): the provider idempotency key is derived
     * from them, and when an earlier try already got a call id, the provider is asked about that
     * call before anything is dialed again (for providers without idempotency keys). A paced
     * configuration dials only on its turn, taken right before the dial; otherwise, and after a
     * provider's 429, the answer is how long to wait before asking again.
     */
    async placeCall({ runId, workflowId, attempt }: PlaceCallInput): Promise<PlacedCall> {
      const run = await records.load(runId);
      if (!run.calledNumber) throw new CallSetupError(`Run ${runId} has no number to call`);
      const provider = adapterOf(run);
      if (run.providerCallId && (await provider.getCallStatus(run.providerCallId))) {
        return { providerCallId: run.providerCallId };
      }
      const configurationId = run.configuration?.id;
      const callsPerSecond = callsPerSecondOf(run);
      if (configurationId !== undefined && callsPerSecond !== null) {
        const turn = await pacing.take(configurationId, callsPerSecond);
        if (!turn.granted) return { waitMs: turn.waitMs, throttled: false };
      }
      try {
        const { providerCallId } = await provider.originate({
          runId,
          to: run.calledNumber,
          from: run.callerNumber,
          idempotencyKey: `${workflowId}:${attempt}`,
          ...callUrls(settings, run.provider, runId, secrets),
          // A message is left after the beep: the provider's detection has to say when it came.
          ...(run.voicemailAction === 'leave_message' ? { machineDetection: 'message_end' as const } : {}),
        });
        await records.markDialed(runId, providerCallId);
        return { providerCallId };
      } catch (error) {
        if (error instanceof ProviderError && error.status === 429 && configurationId !== undefined) {
          // The provider's own limit: every dial of the configuration waits, not only this one.
          const seconds = error.retryAfterSeconds ?? DEFAULT_THROTTLE_SECONDS;
          await pacing.holdOff(configurationId, seconds);
          return { waitMs: Math.max(1, Math.ceil(seconds * 1000)), throttled: true };
        }
        if (error instanceof ProviderError && !error.retryable) throw new ProviderRefusedError(error.message);
        throw error;
      }
    },

    /** The provider's view of the call; null when it does not know it. */
    async getCallStatus({ runId, providerCallId }: { runId: number; providerCallId: string }) {
      const event = await adapterOf(await records.load(runId)).getCallStatus(providerCallId);
      return event ? toUpdate(event) : null;
    },

    /** Hangs the call up; a call the provider no longer knows is already over. */
    async hangupCall({ runId, providerCallId }: { runId: number; providerCallId: string }): Promise<void> {
      try {
        await adapterOf(await records.load(runId)).hangup(providerCallId);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },

    /**
     * Rings the transfer's destination, once per idempotency key. A refusal (the provider's, or a
     * provider that cannot transfer) is an answer, not a failure: the agent tells the caller.
     */
    async startTransfer(input: StartTransferInput): Promise<StartedTransfer> {
      const run = await records.load(input.runId);
      const provider = adapterOf(run);
      if (!provider.transfer) return { refused: 'this telephony provider cannot transfer calls' };
      const urls = callUrls(settings, run.provider, input.runId, secrets);
      try {
        return await provider.transfer.start({
          ...input,
          announcement: input.mode === 'warm' ? (input.announcement ?? null) : null,
          holdAudioUrl: holdAudioUrl(settings.publicBaseUrl),
          holdAudioMp3Url: holdAudioUrl(settings.publicBaseUrl, 'mp3'),
          from: run.callerNumber,
          transferCallbackUrl: transferCallbackUrl(settings.publicBaseUrl, run.provider, input.runId),
          answerUrl: urls.answerUrl,
          mediaStreamUrl: urls.mediaStreamUrl,
        });
      } catch (error) {
        if (error instanceof ProviderError && !error.retryable) return { refused: error.message };
        throw error;
      }
    },

    /** Stops a destination still ringing; a transfer that is over stays as it is. */
    async cancelTransfer({ runId, providerCallId, transferId }: TransferLookup): Promise<void> {
      try {
        await transferOf(adapterOf(await records.load(runId))).cancel(providerCallId, transferId);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },

    /**
     * A transfer that ended without a join: the caller, if still waiting for it, goes back to the
     * agent (on providers that need telling); a call that is over stays over.
     */
    async releaseTransfer({ runId, providerCallId, transferId }: TransferLookup): Promise<void> {
      const transfer = transferOf(adapterOf(await records.load(runId)));
      if (!transfer.release) return;
      try {
        await transfer.release(providerCallId, transferId);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },

    /** The provider's view of the transfer; null when it does not know it. */
    async getTransferStatus({
      runId,
      providerCallId,
      transferId,
    }: TransferLookup): Promise<TransferStatusUpdate | null> {
      const event = await transferOf(adapterOf(await records.load(runId))).status(providerCallId, transferId);
      return event ? { status: event.status, transferId } : null;
    },

    /**
     * The agent's `voicemail_message` rendered with the call's variables (the contact's fields),
     * and how long speaking it takes; null when the agent has none.
     */
    async voicemailMessage({ runId }: { runId: number }): Promise<VoicemailMessage | null> {
      const run = await records.load(runId);
      const template = (await versions.get(run.agentVersionId)).workflowConfigurations.voicemail_message;
      if (typeof template !== 'string' || !template.trim()) return null;
      const text = renderTemplate(template, { initialContext: run.initialContext }).trim();
      if (!text) return null;
      const words = text.split(/\s+/).length;
      return { text, seconds: Math.max(1, Math.ceil(words / VOICEMAIL_WORDS_PER_SECOND)) };
    },

    /**
     * Asks the API process holding the call's media stream to speak the voicemail message (a
     * PostgreSQL NOTIFY every API process listens for); false when the message is too long to send.
     */
    async requestLiveVoicemail({ runId, text }: { runId: number; text: string }): Promise<boolean> {
      const payload = voicemailPayload({ runId, text });
      if (!payload) return false;
      await notifications.notify(VOICEMAIL_CHANNEL, payload);
      return true;
    },

    /** Runs the agent's conversation with the callee of the connected call. */
    async runConversation({
      runId,
      maxDurationSeconds,
      resume,
    }: {
      runId: number;
      maxDurationSeconds: number;
      /** Carries on a conversation that stopped for a transfer that did not connect. */
      resume?: ConversationResume;
    }) {
      const run = await records.load(runId);
      const source = conversationSourceOf(run, await versions.get(run.agentVersionId), run.callDispositionCodes);
      // Heartbeats tell Temporal this worker is alive, so a conversation lost with a killed worker is
      // retried after the heartbeat timeout rather than after max_call_duration. A local activity
      // has none: its workflow task times out with the worker instead.
      const context = Context.current();
      const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), CONVERSATION_HEARTBEAT_MS);
      try {
        const callee = { kind: 'simulated' as const, talkSeconds: talkSecondsOf(run, maxDurationSeconds) };
        const conversation = await converse(
          { ...conversationInput(source, maxDurationSeconds, callee), resume },
          {
            llm: settings.llm,
            tools: await conversationTools(run, source.workflowDefinition),
          },
        );
        // On the list as soon as the callee asked, before the call ends; the run's conclusion lists it too.
        if (conversation.optOut) await listOptOut(dataSource, runId);
        return conversation;
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Writes the call's one outcome (a run already completed is left as it is) and returns the
     * webhooks the finished call sends, which saves the workflow a local activity to list them.
     */
    async finalizeRun({
      runId,
      callStatus,
      durationSeconds,
      conversation,
      voicemail,
      transfers,
    }: FinalizeRunInput): Promise<FinalizedRun> {
      const disposition = callDisposition(callStatus, conversation, voicemail !== undefined);
      const tokens = conversation?.usage.totalTokens ?? 0;
      const prices = { perMinuteUsd: settings.pricePerMinuteUsd, per1kTokensUsd: settings.pricePer1kTokensUsd };
      const charge = chargeUsd(durationSeconds, tokens, prices);
      // The callee asked not to be called again: listed before the run completes and webhooks go out.
      if (conversation?.optOut) await listOptOut(dataSource, runId);
      const agentVersionId = await records.complete(runId, {
        callDurationSeconds: durationSeconds,
        platformTokenUsage: tokens,
        chargeUsd: charge,
        disposition,
        gatheredContext: {
          ...(conversation?.gatheredContext ?? {}),
          call_status: callStatus,
          mapped_call_disposition: disposition,
          ...(voicemail ? { voicemail_message: voicemail.text } : {}),
        },
        logs: {
          transcript:
            conversation?.transcript ??
            (voicemail ? [{ at: new Date().toISOString(), role: 'assistant', text: voicemail.text }] : []),
          ...(conversation ? { node_path: conversation.nodePath, ended_by: conversation.endedBy } : {}),
          ...(conversation?.optOut ? { opt_out: conversation.optOut } : {}),
          ...(conversation?.turnLatency ? { turn_latency: conversation.turnLatency } : {}),
          ...(conversation?.toolCalls ? { tool_calls: conversation.toolCalls } : {}),
          ...(transfers && transfers.length > 0
            ? { transfers: transfers.map((item) => ({ ...item, destination: maskPhoneNumber(item.destination) })) }
            : {}),
        },
        hasTranscript: conversation !== null || voicemail !== undefined,
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
                tool_calls: {
                  total: conversation.toolCalls?.length ?? 0,
                  failed: conversation.toolCalls?.filter((call) => call.status === 'failed').length ?? 0,
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
      });
      if (agentVersionId === undefined) return { postCallWebhooks: [], analyze: false };
      return {
        postCallWebhooks: await postCallWebhooksOf(versions, agentVersionId),
        analyze: enabledQaSettingsOf((await versions.get(agentVersionId)).workflowDefinition).length > 0,
      };
    },
  };
}
