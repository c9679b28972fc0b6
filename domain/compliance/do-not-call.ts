import type { DataSource } from 'typeorm';
import type { DoNotCallNumber } from '../../entities';
import { createDoNotCallRepository, type DoNotCallSearch } from '../../entities/repositories/do-not-call.repository';
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
  return createDoNotCallRepository(dataSource).transaction(async (numbers, manager) => {
    const created = await numbers.listIfNew(organizationId, request.phone_number, request.reason ?? null);
    if (created) await quotas.claim(manager, 'do_not_call_numbers', organizationId);
    const row = await numbers.getByNumber(organizationId, request.phone_number);
    return { entry: doNotCallView(row), created };
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
export const doNotCallPageQuery = (dataSource: DataSource, organizationId: number, query: DoNotCallListQuery) =>
  createDoNotCallRepository(dataSource).pageQuery(organizationId, { ...query, search: searchOf(query.search) });

/** A number's start (digits, `+` and separators dropped) or else a reason's start, as a LIKE pattern. */
function searchOf(text: string | undefined): DoNotCallSearch | undefined {
  const search = text?.trim();
  if (search && NUMBER_START.test(search)) return { on: 'number', pattern: `+${search.replace(/\D/g, '')}%` };
  if (search) return { on: 'reason', pattern: `${escapeLike(search)}%` };
  return undefined;
}

/** One page of the organization's list (see `doNotCallPageQuery`) and the count of all it matches. */
export async function listDoNotCall(dataSource: DataSource, organizationId: number, query: DoNotCallListQuery) {
  const [rows, total] = await createDoNotCallRepository(dataSource).pageOf(organizationId, {
    ...query,
    search: searchOf(query.search),
  });
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
  const removed = await createDoNotCallRepository(dataSource).remove(organizationId, id);
  if (!removed) throw new NotFoundError(ENTRY_NOT_FOUND);
}

/**
 * Lists the number the callee of a run called from (or was called at) after they asked not to be
 * called again, with the run as its source: an entry already there stays as it is. An inbound
 * caller's number the provider did not verify is listed as such (it may be someone else's).
 */
export async function listOptOut(dataSource: DataSource, runId: number): Promise<void> {
  await createDoNotCallRepository(dataSource).listOptOut(runId);
}

const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (char) => `\\${char}`);
