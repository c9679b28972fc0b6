import { setCurrentDetails } from '@temporalio/workflow';
import type { CampaignCarryOver, CampaignProgress } from '../definitions';
import { CampaignCalls } from './children';
import { CampaignTracker } from './tracker';
import { campaignDetails } from './ui-metadata';
import { CampaignWrites } from './writes';

/**
 * One run of a campaign's workflow (until it ends or continues as new): its state and decisions
 * (`tracker`), its writes to PostgreSQL in order (`writes`) and its child calls (`calls`), which
 * the dispatch, the recording of reports and the handlers share.
 */
export class CampaignRun {
  readonly tracker: CampaignTracker;
  readonly writes: CampaignWrites;
  readonly calls: CampaignCalls;
  /** The campaign was read from PostgreSQL: a settings change may be applied. */
  opened = false;
  /** What the campaign's timer waits for, as its details say. */
  waitingFor: string | undefined;

  constructor(campaignId: number, workflowId: string, carry?: CampaignCarryOver) {
    this.tracker = new CampaignTracker(campaignId, workflowId, carry);
    this.writes = new CampaignWrites(this.tracker);
    this.calls = new CampaignCalls(this.tracker);
  }

  get campaignId(): number {
    return this.tracker.campaignId;
  }

  /** Shows the campaign's state in the Temporal UI: by default as it dials, else the `progress` given. */
  showDetails(progress: CampaignProgress = this.tracker.dialingState()): void {
    setCurrentDetails(campaignDetails(progress, this.waitingFor, this.tracker.analysis));
  }
}
