import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { DoNotCallNumber } from '../do-not-call-number.entity';
import { repositoryOver } from './repository';

/** What a list search matches: the start of the numbers or of the reasons (a LIKE pattern, escaped). */
export interface DoNotCallSearch {
  on: 'number' | 'reason';
  pattern: string;
}

/** One page of an organization's list, newest first. */
export interface DoNotCallPage {
  page: number;
  limit: number;
  search?: DoNotCallSearch | undefined;
}

/** The reads and writes of the organizations' do-not-call lists. */
export function doNotCallStatements(manager: EntityManager) {
  const rows = manager.getRepository(DoNotCallNumber);

  /**
   * The query of one page of the organization's list, newest first, optionally narrowed by a
   * search: both read a range of an index of the organization's entries.
   */
  const pageQuery = (organizationId: number, page: DoNotCallPage): SelectQueryBuilder<DoNotCallNumber> => {
    const builder = rows
      .createQueryBuilder('d')
      .where('d.organization_id = :organizationId', { organizationId })
      .orderBy('d.id', 'DESC')
      .skip((page.page - 1) * page.limit)
      .take(page.limit);
    if (page.search?.on === 'number') {
      builder.andWhere('d.phone_number LIKE :prefix', { prefix: page.search.pattern });
    } else if (page.search) {
      builder.andWhere('lower(d.reason) LIKE lower(:prefix)', { prefix: page.search.pattern });
    }
    return builder;
  };

  return {
    /** Lists a number from the API; false when it was listed already (its entry stays as it is). */
    async listIfNew(organizationId: number, phoneNumber: string, reason: string | null): Promise<boolean> {
      const [inserted] = await manager.query<{ id: number }[]>(
        `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source) VALUES ($1, $2, $3, 'api')
       ON CONFLICT (organization_id, phone_number) DO NOTHING RETURNING id`,
        [organizationId, phoneNumber, reason],
      );
      return inserted !== undefined;
    },

    getByNumber(organizationId: number, phoneNumber: string): Promise<DoNotCallNumber> {
      return rows.findOneByOrFail({ organizationId, phoneNumber });
    },

    /** Whether the organization lists the number (stored canonical). */
    async isListed(organizationId: number, phoneNumber: string): Promise<boolean> {
      const listed = await manager.query<unknown[]>(
        `SELECT 1 FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = $2`,
        [organizationId, phoneNumber],
      );
      return listed.length > 0;
    },

    pageQuery,

    /** One page (see `pageQuery`) and the count of all entries the search matches. */
    pageOf(organizationId: number, page: DoNotCallPage): Promise<[DoNotCallNumber[], number]> {
      return pageQuery(organizationId, page).getManyAndCount();
    },

    /** Takes the organization's entry off its list; false when it has no such entry. */
    async remove(organizationId: number, id: number): Promise<boolean> {
      const removed = await rows.delete({ id, organizationId });
      return Boolean(removed.affected);
    },

    /**
     * Lists the number of a run's callee (the caller's number for an inbound call, else the number
     * called) with the run as its source, unless the organization lists it already.
     */
    async listOptOut(runId: number): Promise<void> {
      await manager.query(
        `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source, run_id, caller_id_verified)
     SELECT organization_id, number, 'Asked not to be called during the conversation', 'opt_out', id, verified
       FROM (SELECT organization_id, id,
                    CASE WHEN call_type = 'inbound' THEN caller_number ELSE called_number END AS number,
                    call_type <> 'inbound' OR COALESCE(caller_id_verified, false) AS verified
               FROM runs WHERE id = $1) run
      WHERE number ~ '^\\+[1-9][0-9]{1,14}$'
     ON CONFLICT (organization_id, phone_number) DO NOTHING`,
        [runId],
      );
    },

    /** Lists an imported batch; returns how many numbers were new (repeats in the batch count once). */
    async listImported(
      organizationId: number,
      batch: { phone_number: string; reason: string | null }[],
    ): Promise<number> {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source)
     SELECT DISTINCT ON (x.phone_number) $1, x.phone_number, x.reason, 'import'
       FROM jsonb_to_recordset($2::jsonb) AS x(phone_number text, reason text)
     ON CONFLICT (organization_id, phone_number) DO NOTHING RETURNING id`,
        [organizationId, JSON.stringify(batch)],
      );
      return inserted.length;
    },
  };
}

export type DoNotCallStatements = ReturnType<typeof doNotCallStatements>;

export const createDoNotCallRepository = (dataSource: DataSource) => repositoryOver(dataSource, doNotCallStatements);

export type DoNotCallRepository = ReturnType<typeof createDoNotCallRepository>;
