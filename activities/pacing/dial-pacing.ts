import type { DataSource } from 'typeorm';

/** A dial's turn: granted now, or the milliseconds until the configuration's next one. */
export type DialTurn = { granted: true } | { granted: false; waitMs: number };

/**
 * The pacing of a telephony configuration's dials, shared by every campaign, single call and
 * worker: one `telephony_dial_pacing` row per configuration holding when its next dial may go out.
 * It is a token bucket of one token refilled every 1 / calls_per_second seconds (no burst), so no
 * one-second window ever holds more than `calls_per_second` dials. Each turn is one atomic
 * statement; nothing is kept in a process, so a restart or a second worker changes nothing.
 */
export function createDialPacing(dataSource: DataSource) {
  return {
    /**
     * Takes the configuration's next turn if it is due: one INSERT … ON CONFLICT DO UPDATE …
     * RETURNING, with the clock read once. A turn not yet due answers how long to wait.
     */
    async take(configurationId: number, callsPerSecond: number): Promise<DialTurn> {
      const intervalMs = 1000 / callsPerSecond;
      const [row] = await dataSource.query<{ granted: boolean; wait_ms: number }[]>(
        `INSERT INTO telephony_dial_pacing AS p (telephony_configuration_id, next_dial_at, asked_at, granted, dials)
         SELECT $1, t.now + $2 * interval '1 millisecond', t.now, true, 1 FROM (SELECT clock_timestamp() AS now) t
         ON CONFLICT (telephony_configuration_id) DO UPDATE
            SET next_dial_at = CASE WHEN p.next_dial_at <= EXCLUDED.asked_at THEN EXCLUDED.next_dial_at
                                    ELSE p.next_dial_at END,
                granted = p.next_dial_at <= EXCLUDED.asked_at,
                dials = p.dials + (p.next_dial_at <= EXCLUDED.asked_at)::int,
                asked_at = EXCLUDED.asked_at
         RETURNING granted, extract(epoch FROM next_dial_at - asked_at) * 1000 AS wait_ms`,
        [configurationId, intervalMs],
      );
      if (!row) throw new Error('The dial pacing statement returned no row');
      return row.granted ? { granted: true } : { granted: false, waitMs: Math.max(1, Math.ceil(Number(row.wait_ms))) };
    },

    /**
     * The provider answered 429: no dial of the configuration goes out for `seconds` (a later
     * turn already further away is kept).
     */
    async holdOff(configurationId: number, seconds: number): Promise<void> {
      await dataSource.query(
        `INSERT INTO telephony_dial_pacing AS p (telephony_configuration_id, next_dial_at, asked_at, granted)
         SELECT $1, t.now + $2 * interval '1 second', t.now, false FROM (SELECT clock_timestamp() AS now) t
         ON CONFLICT (telephony_configuration_id) DO UPDATE
            SET next_dial_at = greatest(p.next_dial_at, EXCLUDED.next_dial_at)`,
        [configurationId, seconds],
      );
    },
  };
}
