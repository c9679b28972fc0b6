import type { DataSource } from 'typeorm';
import type { DialRules } from '../domain/compliance/dial-rules';
import { checkRunDial, type DialCheck } from '../domain/compliance/run-dial-check';
import { screenCampaignDials, type ScreenedDial } from '../domain/campaigns/screen-dials';
import type { AttemptBatch } from '../domain/campaigns/prepare-attempts';
import { createCampaignRepository, type CampaignCounters } from '../entities/repositories/campaign.repository';
import { createDialRuleRepository } from '../entities/repositories/dial-rule.repository';
import { CallSetupError } from '../domain/calls/call-errors';

export type { DialCheck, NotDialedReason } from '../domain/compliance/run-dial-check';
export type { ScreenedDial } from '../domain/campaigns/screen-dials';

export interface DialRuleDeps {
  dataSource: DataSource;
  /** Unset: the do-not-call list only. */
  rules?: DialRules;
}

const DEFAULT_RULES: DialRules = { doNotCall: true, perDay: 0, perWeek: 0 };

/**
 * The dial-time checks: the organization's do-not-call list and its frequency caps, for a single
 * call (in its call workflow, before the dial) and for a campaign's batch (before its calls start,
 * so a listed contact is skipped and a capped one rescheduled without a run or a dial).
 */
export function createDialRuleActivities({ dataSource, rules = DEFAULT_RULES }: DialRuleDeps) {
  const dialRules = createDialRuleRepository(dataSource);
  const campaigns = createCampaignRepository({ dataSource });
  return {
    /** Whether the run's call may be dialed now (`checkRunDial` in domain/compliance/run-dial-check.ts). */
    async checkDialRules(dial: { runId: number; workflowId: string; attempt: number }): Promise<DialCheck> {
      const check = await checkRunDial(dialRules, rules, dial);
      if (!check) throw new CallSetupError(`Run ${dial.runId} does not exist`);
      return check;
    },

    /** Screens a campaign's batch before its calls start (`screenCampaignDials` in domain/campaigns/screen-dials.ts). */
    screenCampaignDials(batch: AttemptBatch): Promise<{ dials: ScreenedDial[]; counters: CampaignCounters }> {
      return screenCampaignDials(campaigns, rules, batch);
    },
  };
}
