import { DateTime } from 'luxon';
import { nextOpening } from '../../workflows/campaign/schedule';
import type { ScheduleConfig } from '../../workflows/definitions';

const at = (iso: string, zone = 'UTC'): number => DateTime.fromISO(iso, { zone }).toMillis();
const iso = (ms: number, zone: string): string | null => DateTime.fromMillis(ms, { zone }).toISO();

const weekdays9to17 = (timezone: string): ScheduleConfig => ({
  enabled: true,
  timezone,
  slots: [0, 1, 2, 3, 4].map((day) => ({ day_of_week: day, start_time: '09:00', end_time: '17:00' })),
});

describe('nextOpening', () => {
  it('is now inside a slot, and the end minute is excluded', () => {
    const schedule = weekdays9to17('Europe/Paris');
    // Wednesday 2026-11-18, 10:30 in Paris.
    const inside = at('2026-11-18T10:30', 'Europe/Paris');
    expect(nextOpening(schedule, null, inside)).toBe(inside);
    const startMinute = at('2026-11-18T09:00', 'Europe/Paris');
    expect(nextOpening(schedule, null, startMinute)).toBe(startMinute);
    const endMinute = at('2026-11-18T17:00', 'Europe/Paris');
    expect(iso(nextOpening(schedule, null, endMinute), 'Europe/Paris')).toBe('2026-11-19T09:00:00.000+01:00');
  });

  it('skips the weekend: Friday evening opens on Monday morning (day 0 = Monday)', () => {
    const friday = at('2026-11-20T18:00', 'America/New_York');
    expect(iso(nextOpening(weekdays9to17('America/New_York'), null, friday), 'America/New_York')).toBe(
      '2026-11-23T09:00:00.000-05:00',
    );
  });

  it('opens later the same day before the first slot', () => {
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'UTC',
      slots: [
        { day_of_week: 6, start_time: '14:00', end_time: '15:00' },
        { day_of_week: 6, start_time: '10:00', end_time: '11:00' },
      ],
    };
    // Sunday 2026-11-22 08:00 UTC: the earlier of the two slots.
    expect(iso(nextOpening(schedule, null, at('2026-11-22T08:00')), 'UTC')).toBe('2026-11-22T10:00:00.000Z');
    expect(iso(nextOpening(schedule, null, at('2026-11-22T11:30')), 'UTC')).toBe('2026-11-22T14:00:00.000Z');
    // After the last slot: next Sunday.
    expect(iso(nextOpening(schedule, null, at('2026-11-22T15:00')), 'UTC')).toBe('2026-11-29T10:00:00.000Z');
  });

  it('follows a DST change: the wall-clock opening keeps its local time, the UTC instant moves', () => {
    const schedule = weekdays9to17('America/New_York');
    // Friday 2026-03-06 20:00 EST; DST starts Sunday 2026-03-08; Monday opens 09:00 EDT = 13:00 UTC.
    const opens = nextOpening(schedule, null, at('2026-03-06T20:00', 'America/New_York'));
    expect(iso(opens, 'UTC')).toBe('2026-03-09T13:00:00.000Z');
    // Before the change the same opening is 14:00 UTC.
    const before = nextOpening(schedule, null, at('2026-03-05T20:00', 'America/New_York'));
    expect(iso(before, 'UTC')).toBe('2026-03-06T14:00:00.000Z');
    // Autumn: DST ends Sunday 2026-11-01; Monday opens 09:00 EST = 14:00 UTC.
    const autumn = nextOpening(schedule, null, at('2026-10-30T20:00', 'America/New_York'));
    expect(iso(autumn, 'UTC')).toBe('2026-11-02T14:00:00.000Z');
  });

  it('opens a slot that starts inside the spring-forward gap at the first existing minute', () => {
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'Europe/Berlin',
      // Sunday 2026-03-29: clocks jump from 02:00 to 03:00 in Berlin.
      slots: [{ day_of_week: 6, start_time: '02:30', end_time: '04:00' }],
    };
    const opens = nextOpening(schedule, null, at('2026-03-29T00:30', 'Europe/Berlin'));
    expect(iso(opens, 'Europe/Berlin')).toBe('2026-03-29T03:30:00.000+02:00');
  });

  it("evaluates a contact's own timezone instead of the campaign's", () => {
    const schedule = weekdays9to17('America/New_York');
    // Wednesday 2026-11-18 15:00 UTC: 10:00 in New York (open), 00:00 Thursday in Tokyo (closed).
    const now = at('2026-11-18T15:00');
    expect(nextOpening(schedule, null, now)).toBe(now);
    expect(iso(nextOpening(schedule, 'Asia/Tokyo', now), 'Asia/Tokyo')).toBe('2026-11-19T09:00:00.000+09:00');
    // An unknown contact timezone falls back to the campaign's.
    expect(nextOpening(schedule, 'Not/AZone', now)).toBe(now);
  });

  it('fails open without a config, when disabled, without slots or with an invalid timezone', () => {
    const now = at('2026-11-22T03:00');
    const closed = weekdays9to17('UTC');
    expect(nextOpening(null, null, now)).toBe(now);
    expect(nextOpening({ ...closed, enabled: false }, null, now)).toBe(now);
    expect(nextOpening({ ...closed, slots: [] }, null, now)).toBe(now);
    expect(nextOpening({ ...closed, timezone: 'Mars/Olympus' }, null, now)).toBe(now);
    expect(nextOpening(closed, null, now)).toBeGreaterThan(now);
  });
});
