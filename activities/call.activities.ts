import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { ConversationResult, Converse } from '../agent-runtime/contract';
import type { AgentVersionCache } from '../domain/agents/version-cache';
import { createCallControl, type ProviderCallRef } from '../domain/calls/call-control';
import { createCallProviderOf } from '../domain/calls/call-provider';
import { createCallRecords } from '../domain/calls/call-records';
import type { CallSettings } from '../domain/calls/call-settings';
import {
  createCallTransfers,
  type StartedTransfer,
  type StartTransferInput,
  type TransferLookup,
} from '../domain/calls/call-transfers';
import { createDialPacing } from '../domain/calls/dial-pacing';
import { createFinalizeRun, type FinalizedRun, type FinalizeRunInput } from '../domain/calls/finalize-run';
import { createPlaceCall, type PlaceCallInput, type PlacedCall } from '../domain/calls/place-call';
import { createRunConversation, type RunConversationInput } from '../domain/calls/run-conversation';
import { createVoicemail } from '../domain/calls/voicemail-message';
import type { Secrets } from '../telephony/secrets';
import type { CallStatusUpdate, TransferStatusUpdate, VoicemailMessage } from '../workflows/definitions';

export type {
  FinalizedRun,
  FinalizeRunInput,
  PlaceCallInput,
  PlacedCall,
  StartedTransfer,
  StartTransferInput,
  TransferLookup,
};

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

/**
 * The call workflow's steps. Each is a use case of `domain/calls/`, built once here; what is
 * Temporal's (the conversation's heartbeats) stays here.
 */
export function createCallActivities({ dataSource, secrets, settings, converse, versions }: CallActivityDeps) {
  const records = createCallRecords(dataSource);
  const providerOf = createCallProviderOf({ dataSource, secrets, settings });
  const placeCall = createPlaceCall({ records, providerOf, pacing: createDialPacing(dataSource), settings, secrets });
  const calls = createCallControl({ records, providerOf });
  const transfers = createCallTransfers({ records, providerOf, settings, secrets });
  const voicemail = createVoicemail({ dataSource, records, versions });
  const runConversation = createRunConversation({ dataSource, records, versions, secrets, settings, converse });
  const finalizeRun = createFinalizeRun({
    dataSource,
    records,
    versions,
    prices: { perMinuteUsd: settings.pricePerMinuteUsd, per1kTokensUsd: settings.pricePer1kTokensUsd },
  });

  return {
    /** Dials the run's number once per (workflow, attempt), on its configuration's pace (`domain/calls/place-call.ts`). */
    placeCall: (input: PlaceCallInput): Promise<PlacedCall> => placeCall(input),

    /** The provider's view of the call; null when it does not know it. */
    getCallStatus: (call: ProviderCallRef): Promise<CallStatusUpdate | null> => calls.status(call),

    /** Hangs the call up; a call the provider no longer knows is already over. */
    hangupCall: (call: ProviderCallRef): Promise<void> => calls.hangup(call),

    /** Rings the transfer's destination; a refusal is an answer, not a failure. */
    startTransfer: (input: StartTransferInput): Promise<StartedTransfer> => transfers.start(input),

    /** Stops a destination still ringing; a transfer that is over stays as it is. */
    cancelTransfer: (lookup: TransferLookup): Promise<void> => transfers.cancel(lookup),

    /** A transfer that ended without a join: the caller, if still waiting, goes back to the agent. */
    releaseTransfer: (lookup: TransferLookup): Promise<void> => transfers.release(lookup),

    /** The provider's view of the transfer; null when it does not know it. */
    getTransferStatus: (lookup: TransferLookup): Promise<TransferStatusUpdate | null> => transfers.status(lookup),

    /** The agent's voicemail message rendered for the call, and how long speaking it takes; null when it has none. */
    voicemailMessage: ({ runId }: { runId: number }): Promise<VoicemailMessage | null> => voicemail.messageFor(runId),

    /** Asks the API process holding the call's media stream to speak the message; false when it is too long to send. */
    requestLiveVoicemail: ({ runId, text }: { runId: number; text: string }): Promise<boolean> =>
      voicemail.requestLive(runId, text),

    /** Runs the agent's conversation with the callee of the connected call. */
    async runConversation(input: RunConversationInput): Promise<ConversationResult> {
      // Heartbeats tell Temporal this worker is alive, so a conversation lost with a killed worker is
      // retried after the heartbeat timeout rather than after max_call_duration. A local activity
      // has none: its workflow task times out with the worker instead.
      const context = Context.current();
      const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), CONVERSATION_HEARTBEAT_MS);
      try {
        return await runConversation(input);
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Writes the call's one outcome (a run already completed is left as it is) and returns the
     * webhooks the finished call sends, which saves the workflow a local activity to list them.
     */
    finalizeRun: (input: FinalizeRunInput): Promise<FinalizedRun> => finalizeRun(input),
  };
}
