import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

export type CallType = 'inbound' | 'outbound';
export type RunState = 'initialized' | 'running' | 'completed';

/** One call (or test conversation) of an agent, with what it did and cost. */
@Entity('runs')
export class Run extends TimestampedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  /** The agent (`workflow_id` in the interface and the table). */
  @Column({ type: 'integer', name: 'workflow_id' })
  agentId: number;

  /** The agent version the run executed (`definition_id` in the table). */
  @Column({ type: 'integer', name: 'definition_id' })
  agentVersionId: number;

  @Column({ type: 'text' })
  name: string;

  /** The provider the call went through (`twilio`, `simulator`, ...). */
  @Column({ type: 'text', name: 'mode' })
  provider: string;

  @Column({ type: 'text', default: 'outbound' })
  callType: CallType;

  @Column({ type: 'text', default: 'initialized' })
  state: RunState;

  @Column({ type: 'boolean', default: false })
  isCompleted: boolean;

  @Column({ type: 'integer', nullable: true })
  campaignId: number | null;

  @Column({ type: 'integer', nullable: true })
  campaignAttemptId: number | null;

  @Column({ type: 'integer', nullable: true })
  telephonyConfigurationId: number | null;

  @Column({ type: 'text', nullable: true })
  callerNumber: string | null;

  @Column({ type: 'text', nullable: true })
  calledNumber: string | null;

  /** Inbound calls: whether the provider vouched for `callerNumber` (STIR/SHAKEN A, validated); null outbound. */
  @Column({ type: 'boolean', nullable: true })
  callerIdVerified: boolean | null;

  /** The Temporal workflow id of the call (`call-<runId>` or a campaign child id). */
  @Column({ type: 'text', nullable: true })
  temporalWorkflowId: string | null;

  @Column({ type: 'text', nullable: true })
  providerCallId: string | null;

  @Column({ type: 'text', nullable: true })
  recordingUrl: string | null;

  @Column({ type: 'text', nullable: true })
  transcriptUrl: string | null;

  @Column({ type: 'integer', default: 0 })
  callDurationSeconds: number;

  @Column({ type: 'numeric', default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  platformTokenUsage: number;

  @Column({ type: 'numeric', default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  chargeUsd: number;

  @Column({ type: 'text', nullable: true })
  disposition: string | null;

  @Column({ type: 'jsonb', nullable: true })
  costInfo: Record<string, unknown> | null;

  @Column({ type: 'jsonb', default: {} })
  usageInfo: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  initialContext: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  gatheredContext: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  logs: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  annotations: Record<string, unknown>;

  /** The analyses a later one replaced, oldest first: each the `annotations` keys it wrote. */
  @Column({ type: 'jsonb', default: [] })
  analysisHistory: Record<string, unknown>[];

  /** When the run's personal data was erased (its usage totals remain); null: it is whole. */
  @Column({ type: 'timestamptz', nullable: true })
  erasedAt: Date | null;
}
