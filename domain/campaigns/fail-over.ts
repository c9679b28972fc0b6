import type { CampaignLogEntry, CampaignRepository } from '../../entities/repositories/campaign.repository';

/** The circuit breaker's figures when it switched: `failure_rate`, `failure_count`, `call_count`, `threshold`, `window_seconds`. */
export type BreakerFigures = Record<string, number>;

/** The configurations a switch to the fallback left and took. */
export interface FailoverSwitch {
  fromId: number | null;
  toId: number;
}

const percent = (value: number | undefined): string => `${((value ?? 0) * 100).toFixed(2)}%`;

/** The `provider_failover` log entry: the breaker's figures, and the configurations left and taken. */
export function providerFailoverLog(figures: BreakerFigures, switched: FailoverSwitch): CampaignLogEntry {
  return {
    level: 'warning',
    event: 'provider_failover',
    message:
      `Switched to the fallback telephony configuration ${switched.toId}: failure rate ` +
      `${percent(figures.failure_rate)} (${figures.failure_count}/${figures.call_count}) exceeded ` +
      `threshold ${percent(figures.threshold)} in ${figures.window_seconds}s window`,
    details: {
      ...figures,
      from_telephony_configuration_id: switched.fromId,
      to_telephony_configuration_id: switched.toId,
    },
  };
}

/**
 * Switches the campaign to its fallback configuration and logs `provider_failover` with the
 * breaker's figures; a campaign already switched (a retried activity) is left as it is.
 */
export function createFailOver({ campaigns }: { campaigns: CampaignRepository }) {
  return async ({ campaignId, figures }: { campaignId: number; figures: BreakerFigures }): Promise<void> => {
    await campaigns.transaction(async (tx) => {
      const switched = await tx.switchToFallback(campaignId);
      if (switched) await tx.appendLog(campaignId, providerFailoverLog(figures, switched));
    });
  };
}
