import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type SimulatedOutcome = 'answered' | 'busy' | 'no-answer' | 'voicemail' | 'failed';

/**
 * A call placed through the simulator provider. The row and the clock determine the call's
 * status at any moment, so any process can answer `getCallStatus` after a restart.
 */
@Entity('simulator_calls')
export class SimulatorCall {
  @PrimaryColumn({ type: 'text' })
  providerCallId: string;

  @Column({ type: 'text', unique: true })
  idempotencyKey: string;

  @Column({ type: 'text' })
  toAddress: string;

  @Column({ type: 'text', nullable: true })
  fromAddress: string | null;

  @Column({ type: 'text' })
  statusCallbackUrl: string;

  @Column({ type: 'timestamptz' })
  startedAt: Date;

  @Column({ type: 'text' })
  plannedOutcome: SimulatedOutcome;

  @Column({ type: 'integer' })
  ringSeconds: number;

  @Column({ type: 'integer' })
  talkSeconds: number;

  @Column({ type: 'timestamptz', nullable: true })
  hungUpAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
