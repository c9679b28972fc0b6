import type { AgentVersion, Campaign, TelephonyConfiguration } from '../../entities';
import type { CampaignStatements } from '../../entities/repositories/campaign.repository';
import type { ProviderContext } from '../../telephony/provider';
import { providerFor } from '../../telephony/registry';
import type { Secrets } from '../../telephony/secrets';

/** What every dial of a campaign shares: the agent version, the configuration and the caller id. */
export interface CampaignRoute {
  version: AgentVersion;
  configuration: TelephonyConfiguration;
  callerNumber: string | null;
}

/** Why a campaign cannot dial right now; each attempt then counts as an initiation failure. */
export class CampaignRouteError extends Error {}

/**
 * The route a campaign's calls take, resolved as an API call's is: the agent's current version,
 * the campaign's configuration (else the organization's default outbound one; its fallback once
 * it failed over), checked ready, and its default caller id (else its first active number; the
 * campaign's fallback caller number on the fallback).
 */
export async function campaignRoute(
  campaigns: CampaignStatements,
  secrets: Secrets,
  campaign: Campaign,
  context: Pick<ProviderContext, 'apiBaseUrl' | 'dataSource'>,
): Promise<CampaignRoute> {
  const agent = await campaigns.findAgent(campaign.agentId);
  const version = agent?.currentDefinitionId ? await campaigns.findVersion(agent.currentDefinitionId) : null;
  if (!agent || agent.status === 'archived' || !version)
    throw new CampaignRouteError('The agent has no callable version');

  const onFallback = campaign.failedOverAt !== null && campaign.fallbackTelephonyConfigurationId !== null;
  const configurationId = onFallback ? campaign.fallbackTelephonyConfigurationId : campaign.telephonyConfigurationId;
  const configuration = configurationId
    ? await campaigns.findOwnedConfiguration(campaign.organizationId, configurationId)
    : await campaigns.defaultOutboundConfiguration(campaign.organizationId);
  if (!configuration) throw new CampaignRouteError('Telephony provider not configured for this organization');

  const numbers = await campaigns.numbersOf(configuration.id);
  let readiness;
  try {
    readiness = providerFor(configuration, secrets, {
      apiBaseUrl: context.apiBaseUrl,
      dataSource: context.dataSource,
    }).readiness(
      numbers.map((number) => ({
        address: number.addressNormalized,
        isActive: number.isActive,
        isDefaultCallerId: number.isDefaultCallerId,
      })),
    );
  } catch (error) {
    throw new CampaignRouteError(`Telephony configuration unusable: ${String(error)}`);
  }
  if (!readiness.ready) throw new CampaignRouteError(`Telephony provider not ready: ${readiness.reason}`);
  const active = numbers.filter((number) => number.isActive);
  const chosen = onFallback && campaign.fallbackCallerNumber !== null ? campaign.fallbackCallerNumber : null;
  const caller = chosen
    ? active.find((number) => number.addressNormalized === chosen)
    : (active.find((number) => number.isDefaultCallerId) ?? active[0]);
  if (chosen && !caller) throw new CampaignRouteError(`The fallback caller number ${chosen} is not active`);
  return {
    version,
    configuration,
    callerNumber: caller?.addressNormalized ?? null,
  };
}
