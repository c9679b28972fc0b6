import { Column, Entity } from 'typeorm';
import type { CampaignState, VoicemailAction } from '../domain/campaigns/settings';
import { CreatedEntity } from './base';

@Entity('campaigns')
export class Campaign extends CreatedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  name: string;

  /** The agent dialed by this campaign ("workflow" in the interface and the column). */
  @Column({ type: 'integer', name: 'workflow_id' })
  agentId: number;

  @Column({ type: 'text', default: 'csv' })
  sourceType: string;

  /** The contact list; null once the list was deleted (the campaign had finished). */
  @Column({ type: 'text', nullable: true })
  sourceId: string | null;

  @Column({ type: 'integer', nullable: true })
  telephonyConfigurationId: number | null;

  /** Dialed through instead of the campaign's configuration once the circuit breaker trips. */
  @Column({ type: 'integer', nullable: true })
  fallbackTelephonyConfigurationId: number | null;

  /** The fallback's caller id; null: the fallback configuration's default caller id. */
  @Column({ type: 'text', nullable: true })
  fallbackCallerNumber: string | null;

  /** When the campaign switched to its fallback configuration; null: it dials its own. */
  @Column({ type: 'timestamptz', nullable: true })
  failedOverAt: Date | null;

  /** What a call answered by a machine does (`VOICEMAIL_ACTIONS`). */
  @Column({ type: 'text', default: 'retry_later' })
  voicemailAction: VoicemailAction;

  @Column({ type: 'text', default: 'draft' })
  state: CampaignState;

  @Column({ type: 'jsonb' })
  retryConfig: Record<string, unknown>;

  @Column({ type: 'integer', default: 10 })
  maxConcurrency: number;

  @Column({ type: 'jsonb', nullable: true })
  scheduleConfig: Record<string, unknown> | null;

  @Column({ type: 'jsonb' })
  circuitBreaker: Record<string, unknown>;

  @Column({ type: 'integer', nullable: true })
  totalRows: number | null;

  @Column({ type: 'integer', default: 0 })
  processedRows: number;

  @Column({ type: 'integer', default: 0 })
  failedRows: number;

  @Column({ type: 'integer', default: 0 })
  executedCount: number;

  @Column({ type: 'integer', default: 0 })
  totalQueuedCount: number;

  /** Contacts never dialed because their number is on the organization's do-not-call list. */
  @Column({ type: 'integer', default: 0 })
  dncSkippedCount: number;

  /** Dials put off because the number had reached a frequency cap. */
  @Column({ type: 'integer', default: 0 })
  frequencyCappedCount: number;

  /** Contacts whose call was transferred to a person (also in processed_rows, as `completed`). */
  @Column({ type: 'integer', default: 0 })
  transferredCount: number;

  @Column({ type: 'integer', nullable: true })
  parentCampaignId: number | null;

  @Column({ type: 'integer', nullable: true })
  redialedCampaignId: number | null;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null;
}
