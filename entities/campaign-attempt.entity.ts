import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

/** `cancelled`: a retry never dialed because its campaign was cancelled or failed. */
export type AttemptStatus = 'queued' | 'dialing' | 'finished' | 'cancelled';

/** One dial of one contact by one campaign; (campaign, contact, attempt) is unique. */
@Entity('campaign_attempts')
export class CampaignAttempt extends TimestampedEntity {
  @Column({ type: 'integer' })
  campaignId: number;

  @Column({ type: 'bigint' })
  contactId: string;

  @Column({ type: 'integer' })
  attemptNumber: number;

  @Column({ type: 'text', default: 'queued' })
  status: AttemptStatus;

  /** The call's terminal `call_status` once known. */
  @Column({ type: 'text', nullable: true })
  outcome: string | null;

  @Column({ type: 'integer', nullable: true })
  runId: number | null;

  /** `campaign-<id>/contact-<contactId>/attempt-<n>`. */
  @Column({ type: 'text' })
  temporalWorkflowId: string;

  @Column({ type: 'timestamptz', nullable: true })
  scheduledFor: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
