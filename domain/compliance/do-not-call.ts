import type { DataSource, EntityManager } from 'typeorm';
import { DoNotCallNumber } from '../../entities';
import type { DoNotCallEntry, DoNotCallRequest } from './types';
import { NotFoundError } from '../errors';

/** Longest `reason`, in characters. */
export const DNC_REASON_MAX = 255;
/** Longest `search` text of the list. */
export const DNC_SEARCH_MAX = 64;

const ENTRY_NOT_FOUND = 'Do-not-call entry not found';

export const doNotCallView = (row: DoNotCallNumber): DoNotCallEntry => ({
  id: row.id,
  phone_number: row.phoneNumber,
  reason: row.reason,
  source: row.source,
  run_id: row.runId,
  caller_id_verified: row.callerIdVerified,
  created_at: row.createdAt.toISOString(),
});

/**
 * Lists a number for the organization. A number listed already keeps its entry (its first reason
 * and source); `created` says which happened.
 */
export async function addDoNotCall(
  dataSource: DataSource,
  organizationId: number,
  request: DoNotCallRequest,
): Promise<{ entry: DoNotCallEntry; created: boolean }> {
  const [inserted] = await dataSource.query<{ id: number }[]>(
    `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source) VALUES ($1, $2, $3, 'api')
     ON CONFLICT (organization_id, phone_number) DO NOTHING RETURNING id`,
    [organizationId, request.phone_number, request.reason ?? null],
  );
  const row = await dataSource
    .getRepository(DoNotCallNumber)
    .findOneByOrFail({ organizationId, phoneNumber: request.phone_number });
  return { entry: doNotCallView(row), created: inserted !== undefined };
}

/** One page of the organization's list, newest first, optionally narrowed by `search`. */
export async function listDoNotCall(
  dataSource: DataSource,
  organizationId: number,
  query: { page: number; limit: number; search?: string },
) {
  const builder = dataSource
    .getRepository(DoNotCallNumber)
    .createQueryBuilder('d')
    .where('d.organization_id = :organizationId', { organizationId })
    .orderBy('d.id', 'DESC')
    .skip((query.page - 1) * query.limit)
    .take(query.limit);
  const search = query.search?.trim();
  if (search) {
    const digits = search.replace(/\D/g, '');
    const text = `%${escapeLike(search)}%`;
    if (digits) {
      builder.andWhere('(d.phone_number LIKE :digits OR d.reason ILIKE :text)', { digits: `%${digits}%`, text });
    } else builder.andWhere('d.reason ILIKE :text', { text });
  }
  const [rows, total] = await builder.getManyAndCount();
  return {
    numbers: rows.map(doNotCallView),
    total_count: total,
    page: query.page,
    limit: query.limit,
    total_pages: Math.ceil(total / query.limit),
  };
}

/** Takes an entry off the organization's list; another organization's entry is not found. */
export async function removeDoNotCall(dataSource: DataSource, organizationId: number, id: number): Promise<void> {
  const removed = await dataSource.getRepository(DoNotCallNumber).delete({ id, organizationId });
  if (!removed.affected) throw new NotFoundError(ENTRY_NOT_FOUND);
}

/**
 * Lists the number the callee of a run called from (or was called at) after they asked not to be
 * called again, with the run as its source: an entry already there stays as it is. An inbound
 * caller's number the provider did not verify is listed as such (it may be someone else's).
 */
export async function listOptOut(manager: EntityManager, runId: number): Promise<void> {
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
}

const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (char) => `\\${char}`);
