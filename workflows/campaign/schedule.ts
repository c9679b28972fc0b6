import { DateTime } from 'luxon';
import type { ScheduleConfig, ScheduleSlot } from '../definitions';

/** How far ahead an opening is looked for: every weekday comes round within a week. */
const DAYS_AHEAD = 8;

/** A usable IANA zone, or null (an unknown zone makes the schedule fail open, as decided). */
const zoneOf = (name: string | null | undefined): string | null =>
  name && DateTime.now().setZone(name).isValid ? name : null;

/** The zone a contact's window is reckoned in: its own when valid, else the schedule's (null: none). */
export const windowZone = (
  schedule: ScheduleConfig | null,
  contactTimezone: string | null | undefined,
): string | null => zoneOf(contactTimezone) ?? zoneOf(schedule?.timezone);

/** Luxon's weekday is 1 = Monday .. 7 = Sunday; `day_of_week` is 0 = Monday .. 6 = Sunday. */
const dayOfWeek = (local: DateTime): number => local.weekday - 1;

const hhmm = (local: DateTime): string => local.toFormat('HH:mm');

const inSlot = (local: DateTime, slot: ScheduleSlot): boolean =>
  slot.day_of_week === dayOfWeek(local) && slot.start_time <= hhmm(local) && hhmm(local) < slot.end_time;

/** Whether the schedule applies at all: no config, disabled or no slots means any time. */
const restricts = (schedule: ScheduleConfig | null): schedule is ScheduleConfig =>
  schedule !== null && schedule.enabled && schedule.slots.length > 0;

/**
 * The epoch ms at which a contact may next be dialed: `nowMs` when a slot is open now, else the
 * start of the next slot. Slots are evaluated in `contactTimezone` when it is a valid zone, else
 * in the schedule's own; a start time inside a DST gap opens at the first existing minute after it.
 */
export function nextOpening(
  schedule: ScheduleConfig | null,
  contactTimezone: string | null | undefined,
  nowMs: number,
): number {
  if (!restricts(schedule)) return nowMs;
  const zone = windowZone(schedule, contactTimezone);
  if (!zone) return nowMs;
  const now = DateTime.fromMillis(nowMs, { zone });
  if (schedule.slots.some((slot) => inSlot(now, slot))) return nowMs;

  let best: number | null = null;
  for (let offset = 0; offset < DAYS_AHEAD; offset += 1) {
    const day = now.startOf('day').plus({ days: offset });
    for (const slot of schedule.slots) {
      if (slot.day_of_week !== dayOfWeek(day)) continue;
      const [hour, minute] = slot.start_time.split(':').map(Number);
      const opens = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone });
      // A slot wholly inside a DST gap never opens; one that starts in the gap opens after it.
      if (!opens.isValid || opens.toMillis() <= nowMs || !inSlot(opens, slot)) continue;
      if (best === null || opens.toMillis() < best) best = opens.toMillis();
    }
  }
  // Slots exist but none opens within a week (all inside DST gaps): fail open rather than stall.
  return best ?? nowMs;
}
