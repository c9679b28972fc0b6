import type { DataSource, EntityManager } from 'typeorm';
import type { AgentVersion, Campaign } from '../../entities';
import {
  campaignStatements,
  createCampaignRepository,
  type CampaignStatements,
} from '../../entities/repositories/campaign.repository';
import { campaignSourceStatements } from '../../entities/repositories/campaign-source.repository';
import type { CampaignFallbackRoute, CampaignSettings } from './settings';
import type { Actor } from '../actor';
import { InvalidError } from '../errors';
import type { AgentGraph } from '../agents/agent-graph';
import type { Quotas } from '../quotas';
import { requiredTemplateVariables } from '../agents/templates';
import { settingsColumns } from './campaign-settings';

/**
 * Variables every campaign call's `initial_context` carries besides the contact's columns (the
 * call engine adds them when it dials), so an agent may use them without a CSV column.
 */
export const CAMPAIGN_CALL_VARIABLES = ['called_number', 'caller_number', 'direction', 'provider', 'campaign_id'];

/** The caller's agent and the version its campaign calls will run with; 400 `workflow_not_found` otherwise. */
export async function campaignAgent(campaigns: CampaignStatements, caller: Actor, agentId: number) {
  const agent = await campaigns.findOwnedAgent(caller.organizationId, agentId);
  const version = agent?.currentDefinitionId ? await campaigns.findVersion(agent.currentDefinitionId) : null;
  if (!agent || !version) throw new InvalidError('workflow_not_found');
  return { agent, version };
}

/** The caller's contact list; 400 `source_not_found` otherwise. */
export async function campaignSource(manager: EntityManager, caller: Actor, sourceId: string) {
  const source = await campaignSourceStatements(manager).findOwned(caller.organizationId, sourceId);
  if (!source) throw new InvalidError('source_not_found');
  return source;
}

/**
 * The configuration a campaign dials through: the explicit one (400 `telephony_configuration_not_found`
 * when it is not the caller's), else the organization's default outbound one, else none yet (start
 * then refuses).
 */
async function campaignConfigurationId(
  campaigns: CampaignStatements,
  caller: Actor,
  explicitId: number | null | undefined,
): Promise<number | null> {
  if (explicitId) {
    const found = await campaigns.findOwnedConfiguration(caller.organizationId, explicitId);
    if (!found) throw new InvalidError('telephony_configuration_not_found');
    return found.id;
  }
  const fallback = await campaigns.defaultOutboundConfiguration(caller.organizationId);
  return fallback?.id ?? null;
}

/** Refuses (400) an agent whose templates need variables the contact list has no column for. */
export function checkTemplateVariables(version: AgentVersion, columns: string[]): void {
  const available = new Set([...columns, ...CAMPAIGN_CALL_VARIABLES]);
  const definition = version.workflowDefinition as Pick<AgentGraph, 'nodes' | 'edges'>;
  const missing = requiredTemplateVariables(definition).filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw new InvalidError(
      `Workflow uses template variables that are missing from the source data: ${missing.map((name) => `'${name}'`).join(', ')}. ` +
        'Add these columns to the CSV or give them a fallback ({{name | default}}).',
    );
  }
}

/**
 * Refuses (400) a fallback route that is not the caller's configuration (`fallback_telephony_configuration_not_found`),
 * is the campaign's own, or names a caller number that is not one of its active numbers
 * (`fallback_caller_number_not_found`).
 */
export async function checkFallback(
  campaigns: CampaignStatements,
  caller: Actor,
  primaryId: number | null,
  fallback: CampaignFallbackRoute,
): Promise<void> {
  const found = await campaigns.findOwnedConfiguration(caller.organizationId, fallback.telephony_configuration_id);
  if (!found) throw new InvalidError('fallback_telephony_configuration_not_found');
  if (found.id === primaryId) {
    throw new InvalidError('The fallback telephony configuration must differ from the campaign configuration');
  }
  if (fallback.caller_number !== null) {
    const number = await campaigns.findActiveNumber(found.id, fallback.caller_number);
    if (!number) throw new InvalidError('fallback_caller_number_not_found');
  }
}

export interface NewCampaign {
  settings: CampaignSettings;
  agentId: number;
  sourceId: string;
  telephonyConfigurationId?: number | null;
  parentCampaignId?: number;
}

/**
 * Checks a new campaign's references and inserts it as a draft (inside the caller's transaction,
 * whose manager the quota claim runs on).
 */
export async function insertDraftCampaign(
  manager: EntityManager,
  caller: Actor,
  quotas: Quotas,
  campaign: NewCampaign,
): Promise<Campaign> {
  const campaigns = campaignStatements(manager);
  const { version } = await campaignAgent(campaigns, caller, campaign.agentId);
  const source = await campaignSource(manager, caller, campaign.sourceId);
  const telephonyConfigurationId = await campaignConfigurationId(campaigns, caller, campaign.telephonyConfigurationId);
  checkTemplateVariables(version, source.columns);
  if (campaign.settings.fallback) {
    await checkFallback(campaigns, caller, telephonyConfigurationId, campaign.settings.fallback);
  }
  const saved = await campaigns.insertCampaign({
    organizationId: caller.organizationId,
    agentId: campaign.agentId,
    sourceType: 'csv',
    sourceId: source.id,
    telephonyConfigurationId,
    state: 'draft',
    totalRows: source.totalRows,
    parentCampaignId: campaign.parentCampaignId ?? null,
    ...settingsColumns(campaign.settings),
  });
  await quotas.claim(manager, 'campaigns', caller.organizationId);
  return saved;
}

export const createDraftCampaign = (dataSource: DataSource, caller: Actor, quotas: Quotas, campaign: NewCampaign) =>
  createCampaignRepository({ dataSource }).transaction((_campaigns, manager) =>
    insertDraftCampaign(manager, caller, quotas, campaign),
  );
