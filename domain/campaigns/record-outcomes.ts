import type {
  AttemptKey,
  CampaignCounters,
  CampaignLogEntry,
  CampaignRepository,
} from '../../entities/repositories/campaign.repository';
import { campaignAttemptKey, type TerminalCallStatus } from '../../workflows/definitions';
import { keyedAttempt, type AttemptRef } from './prepare-attempts';

export interface AttemptOutcome extends AttemptRef {
  outcome: TerminalCallStatus;
  runId: number | null;
  /** True when the contact is done; false when a retry follows at `retryAt`. */
  final: boolean;
  retryAt?: number;
  /** Set when the call could not be initiated: logged as `call_initiation_failed`. */
  initiationError?: string;
}

/** The next attempt of each outcome that is retried, due at its `retryAt`. */
export function retriesOf(campaignId: number, outcomes: AttemptOutcome[]): (AttemptKey & { dueMs: number })[] {
  return outcomes.flatMap((item) =>
    !item.final && item.retryAt !== undefined
      ? [{ ...keyedAttempt(campaignId, { contactId: item.contactId, attempt: item.attempt + 1 }), dueMs: item.retryAt }]
      : [],
  );
}

/** A `call_initiation_failed` entry for each outcome of a call that could not be initiated. */
export function initiationFailureLogs(outcomes: AttemptOutcome[]): CampaignLogEntry[] {
  return outcomes.flatMap((item) =>
    item.initiationError === undefined
      ? []
      : [
          {
            level: 'error' as const,
            event: 'call_initiation_failed',
            message: `Call to contact ${item.contactId} (attempt ${item.attempt}) could not be initiated: ${item.initiationError}`,
            details: { contact_id: item.contactId, attempt: item.attempt, error: item.initiationError },
          },
        ],
  );
}

/** The runs of final outcomes that may have been transferred to a person: reached (`completed`), with a run. */
export const transferCandidates = (outcomes: AttemptOutcome[]): number[] =>
  outcomes.flatMap((item) => (item.final && item.outcome === 'completed' && item.runId !== null ? [item.runId] : []));

/**
 * What a batch of applied outcomes adds to the counters: each final outcome is a processed
 * contact, failed unless `completed`; `queued` counts the retries queued and the attempt rows new.
 */
export function outcomeCounters(
  outcomes: AttemptOutcome[],
  { queued, transferred }: { queued: number; transferred: number },
): { queued: number; processed: number; failed: number; transferred: number } {
  const final = outcomes.filter((item) => item.final);
  return {
    queued,
    processed: final.length,
    failed: final.filter((item) => item.outcome !== 'completed').length,
    transferred,
  };
}

/**
 * Records a batch of attempt outcomes in one transaction: finishes the attempt rows, queues the
 * retries, counts final outcomes into `processed_rows` / `failed_rows` (and transferred calls into
 * `transferred`) and logs initiation failures. Attempts already finished (a retried activity) are
 * left alone and counted once.
 */
export function createRecordOutcomes({ campaigns }: { campaigns: CampaignRepository }) {
  return ({ campaignId, outcomes }: { campaignId: number; outcomes: AttemptOutcome[] }): Promise<CampaignCounters> =>
    campaigns.transaction(async (tx) => {
      const finished = await tx.finishAttempts(
        campaignId,
        outcomes.map((item) => ({ ...keyedAttempt(campaignId, item), outcome: item.outcome, runId: item.runId })),
      );
      const done = new Set(finished.map((row) => campaignAttemptKey(row.contactId, row.attempt)));
      const applied = outcomes.filter((item) => done.has(campaignAttemptKey(item.contactId, item.attempt)));
      const queuedRetries = await tx.queueRetries(campaignId, retriesOf(campaignId, applied));
      for (const entry of initiationFailureLogs(applied)) await tx.appendLog(campaignId, entry);
      // A call put through to a person is reached (`completed`, never retried) and counted apart too.
      const transferred = await tx.countTransferred(transferCandidates(applied));
      return tx.addCounters(
        campaignId,
        outcomeCounters(applied, {
          queued: queuedRetries + finished.filter((row) => row.inserted).length,
          transferred,
        }),
      );
    });
}
