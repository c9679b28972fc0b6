import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Campaign, CampaignSource } from '../../entities';
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
  return dataSource.transaction(async (manager) => {
    const parent = await manager.findOne(Campaign, {
      where: { id: parentId, organizationId: caller.organizationId },
      lock: { mode: 'pessimistic_write' },
    });
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
    const source = await manager.findOneByOrFail(CampaignSource, { id: parent.sourceId });
    const copy = await manager.save(
      manager.create(CampaignSource, {
        id: `src_${randomUUID()}`,
        organizationId: caller.organizationId,
        fileName: source.fileName,
        totalRows: 0,
        columns: source.columns,
      }),
    );
    await quotas.claim(manager, 'campaign_sources', caller.organizationId);
    const [counted] = await manager.query<{ copied: number }[]>(
      `WITH copied AS (
         INSERT INTO campaign_contacts (source_id, row_number, phone_number, timezone, initial_context)
         SELECT $1, c.row_number, c.phone_number, c.timezone, c.initial_context
           FROM (SELECT DISTINCT ON (contact_id) contact_id, outcome
                   FROM campaign_attempts WHERE campaign_id = $2 AND status = 'finished'
                  ORDER BY contact_id, attempt_number DESC) last
           JOIN campaign_contacts c ON c.id = last.contact_id
          WHERE last.outcome = ANY($3)
         RETURNING 1)
       SELECT count(*)::int AS copied FROM copied`,
      [copy.id, parent.id, selectedOutcomes(body)],
    );
    const copied = counted?.copied ?? 0;
    if (copied === 0) throw new InvalidError('No contacts match the selected redial criteria');
    await manager.update(CampaignSource, { id: copy.id }, { totalRows: copied });

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
    await manager.update(Campaign, { id: parent.id }, { redialedCampaignId: child.id, updatedAt: new Date() });
    return child;
  });
}
