import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the simulator's transfers leave to check: the warm transfer's announcement the person heard
 * before being joined, and how much hold audio the caller heard while the destination rang; and how
 * long the person talks once joined (null: the call's talk time).
 */
export class SimulatorTransferAudio1795000008200 implements MigrationInterface {
  name = 'SimulatorTransferAudio1795000008200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE simulator_transfers ADD COLUMN announcement text,
                     ADD COLUMN hold_audio_ms integer, ADD COLUMN talk_seconds integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE simulator_transfers DROP COLUMN announcement, DROP COLUMN hold_audio_ms,
                     DROP COLUMN talk_seconds`);
  }
}
