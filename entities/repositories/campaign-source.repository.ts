import type { Writable } from 'node:stream';
import type { Pool, PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { QuotaName, Quotas } from '../../domain/quotas';
import { CampaignSource } from '../campaign-source.entity';
import { repositoryOver } from './repository';

/** A data row whose phone number an earlier row of its list has, and how many such rows the list has. */
export interface RepeatedRow {
  row_number: number;
  total: string;
}

/** The reads and writes of contact lists (`campaign_sources`) and their contacts. */
export function campaignSourceStatements(manager: EntityManager) {
  return {
    /** The organization's contact list with that id; null when it is missing or another organization's. */
    findOwned(organizationId: number, id: string): Promise<CampaignSource | null> {
      return manager.findOneBy(CampaignSource, { id, organizationId });
    },

    getSource(id: string): Promise<CampaignSource> {
      return manager.findOneByOrFail(CampaignSource, { id });
    },

    insertSource(fields: DeepPartial<CampaignSource>): Promise<CampaignSource> {
      return manager.save(manager.create(CampaignSource, fields));
    },

    /**
     * Copies into list `sourceId` (with their row numbers) the contacts of campaign `campaignId`
     * whose last finished attempt ended with one of `outcomes`; returns how many.
     */
    async copyContactsByLastOutcome(sourceId: string, campaignId: number, outcomes: string[]): Promise<number> {
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
        [sourceId, campaignId, outcomes],
      );
      return counted?.copied ?? 0;
    },

    async setTotalRows(id: string, totalRows: number): Promise<void> {
      await manager.update(CampaignSource, { id }, { totalRows });
    },
  };
}

export type CampaignSourceStatements = ReturnType<typeof campaignSourceStatements>;

export const createCampaignSourceRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, campaignSourceStatements);

export type CampaignSourceRepository = ReturnType<typeof createCampaignSourceRepository>;

/**
 * One upload of a contact list, in a transaction of its own on a pooled connection: the contacts
 * stream in through COPY, which the ORM cannot send. The caller begins, commits or rolls back, and
 * always releases the connection.
 */
export async function openContactListUpload(dataSource: DataSource) {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  const client: PoolClient = await pool.connect();
  return {
    async begin(): Promise<void> {
      await client.query('BEGIN');
    },

    async commit(): Promise<void> {
      await client.query('COMMIT');
    },

    /** Rolls the transaction back; false when the connection could not (it is then unfit for reuse). */
    rollback(): Promise<boolean> {
      return client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
    },

    /** Returns the connection to the pool, or closes it when it is unfit for reuse. */
    release({ reusable }: { reusable: boolean }): void {
      client.release(!reusable);
    },

    /** Counts the new list against the organization's quota, inside the upload's transaction. */
    claim(quotas: Pick<Quotas, 'claimOn'>, quota: QuotaName, organizationId: number): Promise<void> {
      return quotas.claimOn(client, quota, organizationId);
    },

    /** The list's row, without columns or contacts yet. */
    async insertSource(sourceId: string, organizationId: number, fileName: string): Promise<void> {
      await client.query(
        `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns) VALUES ($1, $2, $3, 0, '[]')`,
        [sourceId, organizationId, fileName],
      );
    },

    /** The COPY of contact rows: write its text lines to it. */
    contactsCopy(): Writable {
      return client.query(
        copyFrom('COPY campaign_contacts (source_id, row_number, phone_number, timezone, initial_context) FROM STDIN'),
      );
    },

    /** The first ten rows (by row number) whose number an earlier row has, each with the count of all such rows. */
    async repeatedRows(sourceId: string): Promise<RepeatedRow[]> {
      const { rows } = await client.query<RepeatedRow>(
        `SELECT row_number, count(*) OVER () AS total
       FROM (SELECT row_number,
                    row_number() OVER (PARTITION BY phone_number ORDER BY row_number) AS nth
               FROM campaign_contacts c JOIN campaign_sources s
                 ON c.id BETWEEN s.first_contact_id AND s.last_contact_id AND c.source_id = s.id
              WHERE s.id = $1) AS numbered
      WHERE nth > 1
      ORDER BY row_number
      LIMIT 10`,
        [sourceId],
      );
      return rows;
    },

    /** The list's final row count and columns. */
    async completeSource(sourceId: string, totalRows: number, columns: string[]): Promise<void> {
      await client.query('UPDATE campaign_sources SET total_rows = $2, columns = $3 WHERE id = $1', [
        sourceId,
        totalRows,
        JSON.stringify(columns),
      ]);
    },
  };
}

export type ContactListUpload = Awaited<ReturnType<typeof openContactListUpload>>;
