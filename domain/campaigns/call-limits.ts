import type { DataSource } from 'typeorm';
import { createCampaignRepository } from '../../entities/repositories/campaign.repository';
import type { Config } from '../../platform/config';
import type { Actor } from '../actor';
import { ConflictError, ValidationError } from '../errors';

/**
 * How many calls a deployment lets one campaign, and one organization, hold at once: each call in
 * flight costs the worker memory and CPU (docs/operations/scaling.md), so these bound what one
 * tenant can take of a shared worker.
 */
export interface CallLimits {
  /** The largest `max_concurrency` a campaign may have here (the API's own bound is 100). */
  maxConcurrency: number;
  /** The sum of `max_concurrency` over an organization's running campaigns. */
  organizationCallsInFlight: number;
}

export const callLimitsFrom = (
  cfg: Pick<Config, 'CAMPAIGN_MAX_CONCURRENCY' | 'ORG_MAX_CALLS_IN_FLIGHT'>,
): CallLimits => ({
  maxConcurrency: cfg.CAMPAIGN_MAX_CONCURRENCY,
  organizationCallsInFlight: cfg.ORG_MAX_CALLS_IN_FLIGHT,
});

/** 422 on `body.max_concurrency` when a create or PATCH asks for more than the deployment allows. */
export function checkMaxConcurrency(limits: CallLimits, maxConcurrency: number | undefined): void {
  if (maxConcurrency === undefined || maxConcurrency <= limits.maxConcurrency) return;
  throw new ValidationError([
    {
      loc: ['body', 'max_concurrency'],
      msg: `Input should be less than or equal to ${limits.maxConcurrency} (this deployment's CAMPAIGN_MAX_CONCURRENCY)`,
      type: 'less_than_equal',
    },
  ]);
}

/** The organization's running campaigns already hold too many calls for this one to start or resume (409). */
export class CallsInFlightLimitError extends ConflictError {
  constructor(limit: number, reserved: number, wanted: number) {
    super(
      `Calls in flight limit reached: this organization's running campaigns may hold at most ${limit} calls at once ` +
        `(ORG_MAX_CALLS_IN_FLIGHT); ${reserved} are taken by its running campaigns and this campaign's ` +
        `max_concurrency is ${wanted}. Pause another campaign or lower this one's max_concurrency.`,
    );
  }
}

/**
 * Runs `begin` (a start or a resume, which returns once the workflow has marked the campaign
 * running) only if the organization's running campaigns leave room for this one's
 * `max_concurrency` calls. A transaction-scoped advisory lock on the organization is held from the
 * count until `begin` returns, so two campaigns starting at once take turns and cannot both fit
 * into the same room. Paused campaigns hold nothing: their calls in flight end and no new ones start.
 */
export async function withCallsInFlightRoom<T>(
  dataSource: DataSource,
  limits: CallLimits,
  caller: Actor,
  campaignId: number,
  begin: () => Promise<T>,
): Promise<T> {
  return createCampaignRepository({ dataSource }).transaction(async (campaigns) => {
    await campaigns.lockCallsInFlight(caller.organizationId);
    // Statements of their own, so their snapshot is taken after the lock was granted.
    const maxConcurrency = await campaigns.ownedMaxConcurrency(caller.organizationId, campaignId);
    // Not the caller's: the transition itself answers 404.
    if (maxConcurrency === null) return begin();
    if (maxConcurrency > limits.maxConcurrency) {
      throw new ConflictError(
        `This campaign's max_concurrency ${maxConcurrency} exceeds this deployment's ` +
          `CAMPAIGN_MAX_CONCURRENCY ${limits.maxConcurrency}; lower it with PATCH /campaign/${campaignId} first`,
      );
    }
    const reserved = await campaigns.callsReservedByOthers(caller.organizationId, campaignId);
    if (reserved + maxConcurrency > limits.organizationCallsInFlight) {
      throw new CallsInFlightLimitError(limits.organizationCallsInFlight, reserved, maxConcurrency);
    }
    return begin();
  });
}
