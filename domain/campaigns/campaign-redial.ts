import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import { createCampaignRepository } from '../../entities/repositories/campaign.repository';
import { campaignSourceStatements } from '../../entities/repositories/campaign-source.repository';
import type { TerminalCallStatus } from '../../workflows/definitions';
import type { RetryConfig } from './settings';
import type { Actor } from '../actor';
import { ConflictError, InvalidError, NotFoundError } from '../errors';
import type { Quotas } from '../quotas';
import { insertDraftCampaign } from './campaign-create';
import { settingsOf } from './campaign-settings';
import { CAMPAIGN_NOT_FOUND } from './campaign-views';

const REDIALABLE = new Set(['completed', 'cancelled']);

/** Which last outcomes to dial again, and the redial's own name and retries (the parent's by default). */
export interface RedialRequest {
  name?: string;
  retry_on_busy: boolean;
  retry_on_no_answer: boolean;
  retry_on_voicemail: boolean;
  retry_config?: Partial<RetryConfig>;
}

/** The last outcomes each redial flag selects. */
function selectedOutcomes(body: RedialRequest): TerminalCallStatus[] {
  const outcomes: TerminalCallStatus[] = [];
  if (body.retry_on_busy) outcomes.push('busy');
  if (body.retry_on_no_answer) outcomes.push('no-answer');
  if (body.retry_on_voicemail) outcomes.push('voicemail');
  return outcomes;
}

/**
 * Redial: a new draft campaign over the contacts whose last finished attempt in the parent ended
 * with a selected outcome. Those contacts are copied (with their original row numbers) into a new
 * contact list of their own, so the redial campaign is an ordinary campaign over an ordinary
 * source; the copy, the campaign and both links are written in one transaction. A campaign is
 * redialed at most once.
 */
export async function redialCampaign(
  dataSource: DataSource,
  caller: Actor,
  quotas: Quotas,
  parentId: number,
  body: RedialRequest,
): Promise<Campaign> {
  return createCampaignRepository({ dataSource }).transaction(async (campaigns, manager) => {
    const sources = campaignSourceStatements(manager);
    const parent = await campaigns.lockOwnedCampaign(caller.organizationId, parentId);
    if (!parent) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
    if (!REDIALABLE.has(parent.state)) {
      throw new ConflictError(`Only completed or cancelled campaigns can be redialed, current state: ${parent.state}`);
    }
    if (parent.redialedCampaignId !== null) {
      throw new ConflictError(`This campaign has already been redialed (campaign ${parent.redialedCampaignId})`);
    }
    if (parent.sourceId === null) {
      throw new ConflictError("This campaign's contact list was deleted: there is nothing to redial");
    }
    const source = await sources.getSource(parent.sourceId);
    const copy = await sources.insertSource({
      id: `src_${randomUUID()}`,
      organizationId: caller.organizationId,
      fileName: source.fileName,
      totalRows: 0,
      columns: source.columns,
    });
    await quotas.claim(manager, 'campaign_sources', caller.organizationId);
    const copied = await sources.copyContactsByLastOutcome(copy.id, parent.id, selectedOutcomes(body));
    if (copied === 0) throw new InvalidError('No contacts match the selected redial criteria');
    await sources.setTotalRows(copy.id, copied);

    const settings = settingsOf(parent);
    const child = await insertDraftCampaign(manager, caller, quotas, {
      settings: {
        ...settings,
        name: body.name ?? `${parent.name} (Redial)`.slice(0, 255),
        retry_config: { ...settings.retry_config, ...body.retry_config },
      },
      agentId: parent.agentId,
      sourceId: copy.id,
      telephonyConfigurationId: parent.telephonyConfigurationId,
      parentCampaignId: parent.id,
    });
    await campaigns.markRedialed(parent.id, child.id);
    return child;
  });
}
