import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** A number's dial claims of the last seven days, as the frequency caps read them. */
export interface RecentClaims {
  /** The database clock, epoch ms. */
  now_ms: string;
  /** Whether this dial's key is claimed already. */
  claimed: boolean;
  /** Epoch ms of the latest claims, newest first; null when there are none. */
  recent: string[] | null;
}

/** The number a run dials, and its organization. */
export interface RunToDial {
  organization_id: number;
  called_number: string | null;
}

/** The frequency caps' claims (`dial_claims`) and what a dial check reads and notes on its run. */
export function dialRuleStatements(manager: EntityManager) {
  return {
    /** Locks the organization's number for the rest of the transaction: its count and claim are one step. */
    async lockNumber(organizationId: number, phoneNumber: string): Promise<void> {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`dial:${organizationId}:${phoneNumber}`]);
    },

    /**
     * Deletes the number's claims older than seven days and reads, in the same statement, whether
     * `dialKey` is claimed and the `latest` newest claims.
     */
    async recentClaims(
      organizationId: number,
      phoneNumber: string,
      dialKey: string,
      latest: number,
    ): Promise<RecentClaims> {
      // One statement: claims older than the longest window go, and the recent ones come back newest first.
      const [state] = await manager.query<RecentClaims[]>(
        `WITH pruned AS (
       DELETE FROM dial_claims WHERE organization_id = $1 AND phone_number = $2 AND claimed_at <= now() - interval '7 days')
     SELECT (extract(epoch FROM now()) * 1000)::bigint AS now_ms,
            EXISTS (SELECT 1 FROM dial_claims WHERE dial_key = $3) AS claimed,
            (SELECT array_agg(ms ORDER BY ms DESC) FROM (
               SELECT (extract(epoch FROM claimed_at) * 1000)::bigint AS ms FROM dial_claims
                WHERE organization_id = $1 AND phone_number = $2 AND claimed_at > now() - interval '7 days'
                ORDER BY claimed_at DESC LIMIT $4) latest) AS recent`,
        [organizationId, phoneNumber, dialKey, latest],
      );
      if (!state) throw new Error('PostgreSQL answered no row');
      return state;
    },

    /** Counts a dial of the number; a key claimed already is left as it is. */
    async claim(organizationId: number, phoneNumber: string, dialKey: string): Promise<void> {
      await manager.query(
        `INSERT INTO dial_claims (organization_id, phone_number, dial_key) VALUES ($1, $2, $3)
     ON CONFLICT (dial_key) DO NOTHING`,
        [organizationId, phoneNumber, dialKey],
      );
    },

    /** The run's organization and number; undefined when the run does not exist. */
    async runToDial(runId: number): Promise<RunToDial | undefined> {
      const [run] = await manager.query<RunToDial[]>(`SELECT organization_id, called_number FROM runs WHERE id = $1`, [
        runId,
      ]);
      return run;
    },

    /** Merges `note` into the run's `gathered_context`. */
    async noteOnRun(runId: number, note: Record<string, unknown>): Promise<void> {
      await manager.query(
        `UPDATE runs SET gathered_context = COALESCE(gathered_context, '{}'::jsonb) || $2::jsonb WHERE id = $1`,
        [runId, JSON.stringify(note)],
      );
    },
  };
}

export type DialRuleStatements = ReturnType<typeof dialRuleStatements>;

export const createDialRuleRepository = (dataSource: DataSource) => repositoryOver(dataSource, dialRuleStatements);

export type DialRuleRepository = ReturnType<typeof createDialRuleRepository>;
