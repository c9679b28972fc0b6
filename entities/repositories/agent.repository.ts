import type { DataSource, EntityManager } from 'typeorm';
import { Agent } from '../agent.entity';
import { repositoryOver } from './repository';

/** Reads of agents by id within an organization. */
export function agentStatements(manager: EntityManager) {
  const rows = manager.getRepository(Agent);
  return {
    /** The organization's agent with that id; null when it is missing or another organization's. */
    findOwned(organizationId: number, id: number): Promise<Agent | null> {
      return rows.findOneBy({ id, organizationId });
    },

    existsOwned(organizationId: number, id: number): Promise<boolean> {
      return rows.existsBy({ id, organizationId });
    },
  };
}

export const createAgentRepository = (dataSource: DataSource) => repositoryOver(dataSource, agentStatements);

export type AgentRepository = ReturnType<typeof createAgentRepository>;
