import type { DataSource, EntityManager } from 'typeorm';
import { DoNotCallNumber } from '../../entities';
import type { DoNotCallEntry, DoNotCallRequest } from './types';
import { NotFoundError } from '../errors';
import type { Quotas } from '../quotas';

/** Longest `reason`, in characters. */
export const DNC_REASON_MAX = 255;
/** Longest `search` text of the list. */
export const DNC_SEARCH_MAX = 64;
/**
 * How far into a list (or a search) pages reach: a page starting past this many entries is
 * refused, so no request makes PostgreSQL walk a huge list to its end. Narrow with `search` instead.
 */
export const DNC_MAX_OFFSET = 10_000;
/** A search that is the start of a number: digits, an optional leading `+`, and separators. */
const NUMBER_START = /^\+?[\s().-]*\d[\d\s().-]*$/;

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
 * and source); `created` says which happened. A new entry counts against the organization's quota.
 */
export async function addDoNotCall(
  dataSource: DataSource,
  quotas: Quotas,
  organizationId: number,
  request: DoNotCallRequest,
): Promise<{ entry: DoNotCallEntry; created: boolean }> {
  return dataSource.transaction(async (manager) => {
    const [inserted] = await manager.query<{ id: number }[]>(
      `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source) VALUES ($1, $2, $3, 'api')
       ON CONFLICT (organization_id, phone_number) DO NOTHING RETURNING id`,
      [organizationId, request.phone_number, request.reason ?? null],
    );
    if (inserted) await quotas.claim(manager, 'do_not_call_numbers', organizationId);
    const row = await manager
      .getRepository(DoNotCallNumber)
      .findOneByOrFail({ organizationId, phoneNumber: request.phone_number });
    return { entry: doNotCallView(row), created: inserted !== undefined };
  });
}

export interface DoNotCallListQuery {
  page: number;
  limit: number;
  search?: string | undefined;
}

/**
 * The query of one page of the organization's list, newest first, optionally narrowed by `search`:
 * a number's start (digits, with or without `+` and separators: `+1 415` finds `+1415…`) or, for
 * any other text, a reason's start (case-insensitive). Both read a range of an index of the
 * organization's entries, never the whole list.
 */
export function doNotCallPageQuery(dataSource: DataSource, organizationId: number, query: DoNotCallListQuery) {
  const builder = dataSource
    .getRepository(DoNotCallNumber)
    .createQueryBuilder('d')
    .where('d.organization_id = :organizationId', { organizationId })
    .orderBy('d.id', 'DESC')
    .skip((query.page - 1) * query.limit)
    .take(query.limit);
  const search = query.search?.trim();
  if (search && NUMBER_START.test(search)) {
    builder.andWhere('d.phone_number LIKE :prefix', { prefix: `+${search.replace(/\D/g, '')}%` });
  } else if (search) {
    builder.andWhere('lower(d.reason) LIKE lower(:prefix)', { prefix: `${escapeLike(search)}%` });
  }
  return builder;
}

/** One page of the organization's list (see `doNotCallPageQuery`) and the count of all it matches. */
export async function listDoNotCall(dataSource: DataSource, organizationId: number, query: DoNotCallListQuery) {
  const [rows, total] = await doNotCallPageQuery(dataSource, organizationId, query).getManyAndCount();
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
