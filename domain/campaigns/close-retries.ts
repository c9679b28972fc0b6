import type { CampaignCounters, CampaignRepository } from '../../entities/repositories/campaign.repository';
import type { TerminalCallStatus } from '../../workflows/definitions';

/** What closing a campaign's queued retries counted: the contacts' final outcomes. */
export interface ClosedRetries {
  counters: CampaignCounters;
  outcomes: Partial<Record<TerminalCallStatus, number>>;
}

/**
 * What closed retries count: each contact's last finished attempt becomes its final outcome, a
 * processed contact, failed unless `completed`.
 */
export function closedRetryTally(closed: { outcome: string; contacts: number }[]): {
  outcomes: ClosedRetries['outcomes'];
  processed: number;
  failed: number;
} {
  const outcomes: ClosedRetries['outcomes'] = {};
  for (const { outcome, contacts } of closed) outcomes[outcome as TerminalCallStatus] = contacts;
  const processed = closed.reduce((sum, { contacts }) => sum + contacts, 0);
  const failed = closed.reduce((sum, row) => sum + (row.outcome === 'completed' ? 0 : row.contacts), 0);
  return { outcomes, processed, failed };
}

/**
 * Closes the retries still queued when a campaign is cancelled or fails: they are never dialed,
 * and each contact's last finished attempt becomes its final outcome, counted as processed.
 * Idempotent: a retry finds nothing queued and counts nothing twice.
 */
export function createCloseRetries({ campaigns }: { campaigns: CampaignRepository }) {
  return (campaignId: number): Promise<ClosedRetries> =>
    campaigns.transaction(async (tx) => {
      const { outcomes, processed, failed } = closedRetryTally(await tx.cancelQueuedRetries(campaignId));
      const counters = await tx.addCounters(campaignId, { processed, failed });
      return { counters, outcomes };
    });
}
