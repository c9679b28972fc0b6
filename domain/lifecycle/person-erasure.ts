import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { DataSource } from 'typeorm';
import type { Actor } from '../actor';
import type { RecordingStore } from '../../voice/recording-store';
import { eraseRuns, RUN_IN_PROGRESS } from './run-erasure';

export interface PersonErasure {
  /** The forms of the number that were matched: as given, and its E.164 form when it has one. */
  matched_numbers: string[];
  contacts_deleted: number;
  runs_erased: number;
  recordings_deleted: number;
  /** Runs of the number still on the line, left whole: erase again once they have ended. */
  runs_in_progress: number;
  /** Whether the number is on the do-not-call list, where it stays. */
  on_do_not_call_list: boolean;
}

/** The number as given and, when libphonenumber-js reads it, its E.164 form. */
export function numberForms(phoneNumber: string): string[] {
  const given = phoneNumber.trim();
  const e164 = parsePhoneNumberFromString(given)?.number;
  return [...new Set([given, ...(e164 ? [e164] : [])])];
}

const RUN_BATCH = 500;

/**
 * Erases one person's data across the organization: the contacts with the number (in every list,
 * with their campaign attempts) and the personal data and recordings of runs from or to it. The
 * do-not-call entry stays: it is what keeps the number from being called again.
 */
export async function erasePerson(
  dataSource: DataSource,
  recordings: RecordingStore,
  caller: Actor,
  phoneNumber: string,
): Promise<PersonErasure> {
  const numbers = numberForms(phoneNumber);
  const organizationId = caller.organizationId;
  // Through each list's contact id range, as lists are read: the contacts table has no number index.
  const [, contactsDeleted] = await dataSource.query<[unknown, number]>(
    `DELETE FROM campaign_contacts c USING campaign_sources s
      WHERE s.organization_id = $1 AND c.id BETWEEN s.first_contact_id AND s.last_contact_id
        AND c.source_id = s.id AND c.phone_number = ANY($2)`,
    [organizationId, numbers],
  );

  const erased = { runs: 0, recordings: 0 };
  for (;;) {
    const batch = await dataSource.query<{ id: number }[]>(
      `SELECT id FROM runs
        WHERE organization_id = $1 AND (caller_number = ANY($2) OR called_number = ANY($2)) AND NOT ${RUN_IN_PROGRESS}
        ORDER BY id LIMIT $3`,
      [organizationId, numbers, RUN_BATCH],
    );
    if (batch.length === 0) break;
    const done = await eraseRuns(
      dataSource,
      recordings,
      organizationId,
      batch.map((run) => run.id),
    );
    erased.runs += done.runs;
    erased.recordings += done.recordings;
  }
  const [counts] = await dataSource.query<{ in_progress: number; listed: boolean }[]>(
    `SELECT (SELECT count(*)::int FROM runs WHERE organization_id = $1
               AND (caller_number = ANY($2) OR called_number = ANY($2))) AS in_progress,
            EXISTS (SELECT 1 FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = ANY($2)) AS listed`,
    [organizationId, numbers],
  );
  return {
    matched_numbers: numbers,
    contacts_deleted: contactsDeleted,
    runs_erased: erased.runs,
    recordings_deleted: erased.recordings,
    runs_in_progress: counts?.in_progress ?? 0,
    on_do_not_call_list: counts?.listed ?? false,
  };
}
