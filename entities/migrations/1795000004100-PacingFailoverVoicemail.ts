import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dial pacing per telephony configuration (its rate and the one row its calls take their turn
 * from), a campaign's fallback route, and what a campaign does when a machine answers.
 */
export class PacingFailoverVoicemail1795000004100 implements MigrationInterface {
  name = 'PacingFailoverVoicemail1795000004100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE telephony_configurations ADD COLUMN calls_per_second numeric(7, 3)
                     CHECK (calls_per_second > 0 AND calls_per_second <= 1000)`);
    // One row per paced configuration: the earliest moment its next call may be dialed, and the
    // last turn asked for (when, and whether it was granted), which the statement answers with.
    await q.query(`CREATE TABLE telephony_dial_pacing (
                     telephony_configuration_id integer PRIMARY KEY
                       REFERENCES telephony_configurations (id) ON DELETE CASCADE,
                     next_dial_at timestamptz NOT NULL,
                     asked_at timestamptz NOT NULL,
                     granted boolean NOT NULL,
                     dials bigint NOT NULL DEFAULT 0)`);
    await q.query(`ALTER TABLE campaigns
                     ADD COLUMN fallback_telephony_configuration_id integer
                       REFERENCES telephony_configurations (id) ON DELETE RESTRICT,
                     ADD COLUMN fallback_caller_number text CHECK (length(fallback_caller_number) <= 32),
                     ADD COLUMN failed_over_at timestamptz,
                     ADD COLUMN voicemail_action text NOT NULL DEFAULT 'retry_later'
                       CHECK (voicemail_action IN ('leave_message', 'hang_up', 'retry_later'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns DROP COLUMN voicemail_action, DROP COLUMN failed_over_at,
                     DROP COLUMN fallback_caller_number, DROP COLUMN fallback_telephony_configuration_id`);
    await q.query(`DROP TABLE telephony_dial_pacing`);
    await q.query(`ALTER TABLE telephony_configurations DROP COLUMN calls_per_second`);
  }
}
