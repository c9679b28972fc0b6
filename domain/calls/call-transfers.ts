import { holdAudioUrl, transferCallbackUrl } from '../../telephony/inbound';
import { ProviderError, type TransferMode } from '../../telephony/provider';
import type { Secrets } from '../../telephony/secrets';
import type { TransferStatusUpdate } from '../../workflows/definitions';
import { transferOf, type CallProviderOf } from './call-provider';
import type { CallRecords } from './call-records';
import { callUrls, type CallSettings } from './call-settings';

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

export interface CallTransferDeps {
  records: CallRecords;
  providerOf: CallProviderOf;
  settings: CallSettings;
  secrets: Secrets;
}

/** A call's transfers to a person: ringing the destination, stopping it, handing the caller back, asking how it stands. */
export function createCallTransfers({ records, providerOf, settings, secrets }: CallTransferDeps) {
  /** The provider's answer; a transfer or call it no longer knows (404) is over, which is what was asked. */
  const unlessGone = async (step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return;
      throw error;
    }
  };

  return {
    /**
     * Rings the transfer's destination, once per idempotency key. A refusal (the provider's, or a
     * provider that cannot transfer) is an answer, not a failure: the agent tells the caller.
     */
    async start(input: StartTransferInput): Promise<StartedTransfer> {
      const run = await records.load(input.runId);
      const provider = providerOf(run);
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
    async cancel({ runId, providerCallId, transferId }: TransferLookup): Promise<void> {
      await unlessGone(async () =>
        transferOf(providerOf(await records.load(runId))).cancel(providerCallId, transferId),
      );
    },

    /**
     * A transfer that ended without a join: the caller, if still waiting for it, goes back to the
     * agent (on providers that need telling); a call that is over stays over.
     */
    async release({ runId, providerCallId, transferId }: TransferLookup): Promise<void> {
      const transfer = transferOf(providerOf(await records.load(runId)));
      if (!transfer.release) return;
      await unlessGone(async () => transfer.release?.(providerCallId, transferId));
    },

    /** The provider's view of the transfer; null when it does not know it. */
    async status({ runId, providerCallId, transferId }: TransferLookup): Promise<TransferStatusUpdate | null> {
      const event = await transferOf(providerOf(await records.load(runId))).status(providerCallId, transferId);
      return event ? { status: event.status, transferId } : null;
    },
  };
}
