import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { DataSource } from 'typeorm';
import { createDataLifecycleRepository } from '../../entities/repositories/data-lifecycle.repository';
import type { Actor } from '../actor';
import type { RecordingStore } from '../../voice/recording-store';
import { eraseRuns } from './run-erasure';

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
  const lifecycle = createDataLifecycleRepository(dataSource);
  const contactsDeleted = await lifecycle.deleteContactsWithNumbers(organizationId, numbers);

  const erased = { runs: 0, recordings: 0 };
  for (;;) {
    const batch = await lifecycle.endedRunsWithNumbers(organizationId, numbers, RUN_BATCH);
    if (batch.length === 0) break;
    const done = await eraseRuns(lifecycle, recordings, organizationId, batch);
    erased.runs += done.runs;
    erased.recordings += done.recordings;
  }
  const left = await lifecycle.numbersLeft(organizationId, numbers);
  return {
    matched_numbers: numbers,
    contacts_deleted: contactsDeleted,
    runs_erased: erased.runs,
    recordings_deleted: erased.recordings,
    runs_in_progress: left.in_progress,
    on_do_not_call_list: left.listed,
  };
}
