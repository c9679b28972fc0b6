import { Column, Entity } from 'typeorm';
import { CreatedEntity } from './base';

export type AgentVersionStatus = 'draft' | 'published' | 'archived';

/** One immutable version of an agent's definition ("definition" in the interface). */
@Entity('agent_versions')
export class AgentVersion extends CreatedEntity {
  @Column({ type: 'integer' })
  agentId: number;

  @Column({ type: 'integer' })
  versionNumber: number;

  @Column({ type: 'text' })
  status: AgentVersionStatus;

  @Column({ type: 'jsonb' })
  workflowDefinition: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  workflowConfigurations: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  templateContextVariables: Record<string, unknown>;
}
