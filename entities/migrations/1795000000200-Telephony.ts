import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The simulator provider's calls: kept in PostgreSQL so their status survives process restarts. */
export class Telephony1795000000200 implements MigrationInterface {
  name = 'Telephony1795000000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE simulator_calls (
        provider_call_id text PRIMARY KEY,
        -- One call per idempotency key: a retried originate returns the first call.
        idempotency_key text NOT NULL UNIQUE,
        to_address text NOT NULL,
        from_address text,
        status_callback_url text NOT NULL,
        started_at timestamptz NOT NULL,
        planned_outcome text NOT NULL
          CHECK (planned_outcome IN ('answered', 'busy', 'no-answer', 'voicemail', 'failed')),
        ring_seconds integer NOT NULL CHECK (ring_seconds >= 0),
        talk_seconds integer NOT NULL CHECK (talk_seconds >= 0),
        hung_up_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE simulator_calls`);
  }
}
