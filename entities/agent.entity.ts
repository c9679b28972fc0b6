import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

export type AgentStatus = 'active' | 'archived';

/** A voice agent; the interface calls it a "workflow" in paths and fields. */
@Entity('agents')
export class Agent extends TimestampedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  /** The stable Agent UUID used by the call API. */
  @Column({ type: 'uuid' })
  workflowUuid: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: 'active' })
  status: AgentStatus;

  /** The version calls run with; null only while the first version is being written. */
  @Column({ type: 'integer', nullable: true })
  currentDefinitionId: number | null;

  @Column({ type: 'jsonb', default: { disposition_codes: [] } })
  callDispositionCodes: { disposition_codes: unknown[] };
}
