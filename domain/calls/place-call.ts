import { ProviderError } from '../../telephony/provider';
import { providerDefinition } from '../../telephony/registry';
import type { Secrets } from '../../telephony/secrets';
import { CallSetupError, ProviderRefusedError } from './call-errors';
import type { CallProviderOf } from './call-provider';
import type { CallRecord, CallRecords } from './call-records';
import { callUrls, type CallSettings } from './call-settings';
import type { DialPacing } from './dial-pacing';

export interface PlaceCallInput {
  runId: number;
  workflowId: string;
  attempt: number;
}

/** The dial went out; or it must wait `waitMs` for its configuration's pace (or a provider's 429). */
export type PlacedCall = { providerCallId: string } | { waitMs: number; throttled: boolean };

/** How long a provider's 429 holds the configuration's dials when it sends no `Retry-After`. */
export const DEFAULT_THROTTLE_SECONDS = 1;

export interface PlaceCallDeps {
  records: CallRecords;
  providerOf: CallProviderOf;
  pacing: DialPacing;
  settings: CallSettings;
  secrets: Secrets;
}

/** The configuration's dials per second: its own, else its provider's default; null: not paced. */
export function callsPerSecondOf(run: Pick<CallRecord, 'configuration' | 'provider'>): number | null {
  if (!run.configuration) return null;
  return run.configuration.callsPerSecond ?? providerDefinition(run.provider)?.defaultCallsPerSecond ?? null;
}

/**
 * Dials the run's number once per (workflow, attempt): the provider idempotency key is derived
 * from them, and when an earlier try already got a call id, the provider is asked about that
 * call before anything is dialed again (for providers without idempotency keys). A paced
 * configuration dials only on its turn, taken right before the dial; otherwise, and after a
 * provider's 429, the answer is how long to wait before asking again.
 */
export function createPlaceCall({ records, providerOf, pacing, settings, secrets }: PlaceCallDeps) {
  return async ({ runId, workflowId, attempt }: PlaceCallInput): Promise<PlacedCall> => {
    const run = await records.load(runId);
    if (!run.calledNumber) throw new CallSetupError(`Run ${runId} has no number to call`);
    const provider = providerOf(run);
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
  };
}
