import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A retry still waiting when its campaign is cancelled or fails is never dialed: it is closed as
 * `cancelled`, and its contact keeps its last finished attempt's outcome as final.
 */
export class CampaignAttemptsCancelled1795000003000 implements MigrationInterface {
  name = 'CampaignAttemptsCancelled1795000003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaign_attempts
        DROP CONSTRAINT campaign_attempts_status_check,
        ADD CONSTRAINT campaign_attempts_status_check
          CHECK (status IN ('queued', 'dialing', 'finished', 'cancelled'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM campaign_attempts WHERE status = 'cancelled'`);
    await q.query(`
      ALTER TABLE campaign_attempts
        DROP CONSTRAINT campaign_attempts_status_check,
        ADD CONSTRAINT campaign_attempts_status_check CHECK (status IN ('queued', 'dialing', 'finished'))`);
  }
}
