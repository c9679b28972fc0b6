import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Which agent an API trigger path belongs to: one row per `trigger` node of an agent's current
 * version, rewritten on every save, so `POST /public/agent/{trigger_path}` resolves in one lookup.
 */
@Entity('agent_triggers')
export class AgentTrigger {
  @PrimaryColumn({ type: 'uuid' })
  triggerPath: string;

  @Column({ type: 'integer' })
  agentId: number;

  @Column({ type: 'integer' })
  organizationId: number;
}
