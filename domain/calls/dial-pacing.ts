import type { DataSource } from 'typeorm';
import { createDialPacingRepository } from '../../entities/repositories/dial-pacing.repository';

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
  const pacing = createDialPacingRepository(dataSource);
  return {
    /** Takes the configuration's next turn if it is due; a turn not yet due answers how long to wait. */
    async take(configurationId: number, callsPerSecond: number): Promise<DialTurn> {
      const row = await pacing.takeTurn(configurationId, 1000 / callsPerSecond);
      return row.granted ? { granted: true } : { granted: false, waitMs: Math.max(1, Math.ceil(Number(row.wait_ms))) };
    },

    /**
     * The provider answered 429: no dial of the configuration goes out for `seconds` (a later
     * turn already further away is kept).
     */
    holdOff(configurationId: number, seconds: number): Promise<void> {
      return pacing.holdOff(configurationId, seconds);
    },
  };
}

export type DialPacing = ReturnType<typeof createDialPacing>;
