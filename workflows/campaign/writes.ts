import { upsertSearchAttributes } from '@temporalio/workflow';
import type { CampaignLogEntry } from '../../activities/campaign.activities';
import type { CampaignState } from '../definitions';
import { emitCampaignLifecycleEvent } from '../organization-events';
import { CampaignStateAttribute } from '../search-attributes';
import { campaignActivities } from './activities';
import type { CampaignTracker } from './tracker';

/**
 * The campaign's state writes to PostgreSQL, one after another, so a fast pause + resume lands in
 * order; a transition changes the state (and its search attribute) at once and writes it after,
 * then tells the organization's webhook subscriptions of a pause or completion.
 */
export class CampaignWrites {
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly tracker: CampaignTracker) {}

  serially(write: () => Promise<void>): Promise<void> {
    const next = this.last.then(write);
    this.last = next.catch(() => undefined);
    return next;
  }

  transition(from: CampaignState[], to: CampaignState, log: CampaignLogEntry): Promise<void> {
    this.tracker.setState(to);
    showState(to);
    const { campaignId } = this.tracker;
    return this.serially(async () => {
      await campaignActivities.transitionCampaign({ campaignId, from, to, log });
      if (to === 'paused' || to === 'completed') {
        await emitCampaignLifecycleEvent({ campaignId, type: `campaign.${to}`, log });
      }
    });
  }

  /** Resolves once every write queued so far has been made (or has failed). */
  settled(): Promise<void> {
    return this.last;
  }
}

/** Operators filter campaigns by state in the Temporal UI. */
export const showState = (state: CampaignState): void =>
  upsertSearchAttributes([{ key: CampaignStateAttribute, value: state }]);
