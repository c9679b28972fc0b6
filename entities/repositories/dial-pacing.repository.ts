import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** The telephony configurations' dial turns (`telephony_dial_pacing`, one row per configuration). */
export function dialPacingStatements(manager: EntityManager) {
  return {
    /**
     * Takes the configuration's next turn if it is due, the next one then `intervalMs` later: one
     * INSERT … ON CONFLICT DO UPDATE … RETURNING, with the clock read once. `wait_ms`: until the
     * next turn.
     */
    async takeTurn(configurationId: number, intervalMs: number): Promise<{ granted: boolean; wait_ms: number }> {
      const [row] = await manager.query<{ granted: boolean; wait_ms: number }[]>(
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
      return row;
    },

    /** No turn of the configuration before `seconds` from now (a later turn already further away is kept). */
    async holdOff(configurationId: number, seconds: number): Promise<void> {
      await manager.query(
        `INSERT INTO telephony_dial_pacing AS p (telephony_configuration_id, next_dial_at, asked_at, granted)
         SELECT $1, t.now + $2 * interval '1 second', t.now, false FROM (SELECT clock_timestamp() AS now) t
         ON CONFLICT (telephony_configuration_id) DO UPDATE
            SET next_dial_at = greatest(p.next_dial_at, EXCLUDED.next_dial_at)`,
        [configurationId, seconds],
      );
    },
  };
}

export const createDialPacingRepository = (dataSource: DataSource) => repositoryOver(dataSource, dialPacingStatements);

export type DialPacingRepository = ReturnType<typeof createDialPacingRepository>;
