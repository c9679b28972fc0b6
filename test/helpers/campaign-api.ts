import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { CampaignState } from '../../domain/campaigns/settings';
import type { TestServer } from './accounts';

export interface ContactRow {
  phone_number: string;
  [column: string]: string;
}

/**
 * A contact list written straight to PostgreSQL, as the upload route stores one (the upload route
 * has its own tests); returns its `source_id`. Columns are the first row's keys.
 */
export async function insertContactSource(
  dataSource: DataSource,
  organizationId: number,
  rows: ContactRow[],
): Promise<string> {
  const sourceId = `src_${randomUUID()}`;
  const columns = Object.keys(rows[0] ?? { phone_number: '' });
  await dataSource.query(
    `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns) VALUES ($1, $2, 'contacts.csv', $3, $4)`,
    [sourceId, organizationId, rows.length, JSON.stringify(columns)],
  );
  for (const [index, row] of rows.entries()) {
    const { phone_number, timezone, ...context } = row;
    await dataSource.query(
      `INSERT INTO campaign_contacts (source_id, row_number, phone_number, timezone, initial_context) VALUES ($1, $2, $3, $4, $5)`,
      [sourceId, index + 1, phone_number, timezone ?? null, JSON.stringify(context)],
    );
  }
  return sourceId;
}

/** Contact ids of a source, by row number. */
export async function contactIds(dataSource: DataSource, sourceId: string): Promise<string[]> {
  const rows = await dataSource.query<{ id: string }[]>(
    'SELECT id FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number',
    [sourceId],
  );
  return rows.map((row) => String(row.id));
}

/**
 * Puts a campaign row in a state only its workflow reaches (running, completed, ...), to check how
 * the API answers there without running a whole campaign.
 */
export async function setCampaignState(dataSource: DataSource, campaignId: number, state: CampaignState) {
  await dataSource.query('UPDATE campaigns SET state = $2 WHERE id = $1', [campaignId, state]);
}

/** One attempt of a contact, as the campaign workflow's activities record it. */
export async function insertAttempt(
  dataSource: DataSource,
  attempt: { campaignId: number; contactId: string; attempt: number; outcome: string | null; status?: string },
) {
  await dataSource.query(
    `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, status, outcome, temporal_workflow_id, finished_at)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $4 = 'finished' THEN now() END)`,
    [
      attempt.campaignId,
      attempt.contactId,
      attempt.attempt,
      attempt.status ?? 'finished',
      attempt.outcome,
      `campaign-${attempt.campaignId}/contact-${attempt.contactId}/attempt-${attempt.attempt}`,
    ],
  );
}

/** Creates a campaign through the API; fails the test on anything but 201. */
export async function createCampaign(server: TestServer, token: string, body: Record<string, unknown>) {
  const res = await request(server).post('/api/v1/campaign/create').auth(token, { type: 'bearer' }).send(body);
  if (res.status !== 201) throw new Error(`campaign creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; state: string; source_id: string; [field: string]: unknown };
}
