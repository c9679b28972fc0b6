import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import type { AgentView } from '../../domain/agents/types';
import { Agent } from '../agent.entity';
import { AgentTrigger } from '../agent-trigger.entity';
import { AgentVersion } from '../agent-version.entity';
import { repositoryOver } from './repository';

/** An agent with its current version and run count, as one row. */
export interface AgentRow {
  id: number;
  name: string;
  status: AgentView['status'];
  created_at: Date;
  workflow_uuid: string;
  current_definition_id: number;
  call_disposition_codes: AgentView['call_disposition_codes'];
  version_number: number;
  version_status: AgentView['version_status'];
  workflow_definition: AgentView['workflow_definition'];
  workflow_configurations: AgentView['workflow_configurations'];
  template_context_variables: AgentView['template_context_variables'];
  total_runs: number;
}

/** What a run executes of an agent version. */
export interface AgentVersionContentRow {
  workflow_definition: Record<string, unknown>;
  workflow_configurations: Record<string, unknown>;
  template_context_variables: Record<string, unknown>;
}

/** The agent with its current version and run count, in one query. */
const AGENT_QUERY = `
  SELECT a.id, a.name, a.status, a.created_at, a.workflow_uuid, a.current_definition_id, a.call_disposition_codes,
         v.version_number, v.status AS version_status, v.workflow_definition, v.workflow_configurations,
         v.template_context_variables,
         (SELECT count(*) FROM runs r WHERE r.workflow_id = a.id)::int AS total_runs
    FROM agents a
    JOIN agent_versions v ON v.id = a.current_definition_id
   WHERE a.organization_id = $1`;

/** The reads and writes of agents, their versions and the index of their trigger paths. */
export function agentStatements(manager: EntityManager) {
  const rows = manager.getRepository(Agent);
  const versions = manager.getRepository(AgentVersion);
  const triggers = manager.getRepository(AgentTrigger);
  return {
    /** The organization's agent with that id; null when it is missing or another organization's. */
    findOwned(organizationId: number, id: number): Promise<Agent | null> {
      return rows.findOneBy({ id, organizationId });
    },

    /** `findOwned`, the row locked until the transaction ends. */
    lockOwned(organizationId: number, id: number): Promise<Agent | null> {
      return rows.findOne({ where: { id, organizationId }, lock: { mode: 'pessimistic_write' } });
    },

    existsOwned(organizationId: number, id: number): Promise<boolean> {
      return rows.existsBy({ id, organizationId });
    },

    insert(fields: DeepPartial<Agent>): Promise<Agent> {
      return rows.save(rows.create(fields));
    },

    async rename(id: number, name: string): Promise<void> {
      await rows.update({ id }, { name });
    },

    /** False when the organization has no agent with that id. */
    async setStatus(organizationId: number, id: number, status: Agent['status']): Promise<boolean> {
      const result = await rows.update({ id, organizationId }, { status });
      return Boolean(result.affected);
    },

    /** The organization's agent as one `AgentRow`; undefined when it is missing or another organization's. */
    async agentRow(organizationId: number, id: number): Promise<AgentRow | undefined> {
      const [row] = await manager.query<AgentRow[]>(`${AGENT_QUERY} AND a.id = $2`, [organizationId, id]);
      return row;
    },

    /** The organization's agents, newest first, optionally only those with that status. */
    agentRows(organizationId: number, status: Agent['status'] | undefined): Promise<AgentRow[]> {
      return manager.query<AgentRow[]>(
        `${AGENT_QUERY} AND ($2::text IS NULL OR a.status = $2) ORDER BY a.created_at DESC, a.id DESC`,
        [organizationId, status ?? null],
      );
    },

    /** Every version of the organization's agent, newest first; none when the agent is another organization's. */
    versionsOf(organizationId: number, id: number): Promise<AgentVersion[]> {
      return versions
        .createQueryBuilder('v')
        .innerJoin('agents', 'a', 'a.id = v.agent_id')
        .where('v.agent_id = :id AND a.organization_id = :organizationId', { id, organizationId })
        .orderBy('v.version_number', 'DESC')
        .getMany();
    },

    version(id: number): Promise<AgentVersion> {
      return versions.findOneByOrFail({ id });
    },

    /** What a run executes of the version; undefined for an unknown id. */
    async versionContent(id: number): Promise<AgentVersionContentRow | undefined> {
      const [row] = await manager.query<AgentVersionContentRow[]>(
        `SELECT workflow_definition, workflow_configurations, template_context_variables
         FROM agent_versions WHERE id = $1`,
        [id],
      );
      return row;
    },

    /** The highest version number the agent has had; null before its first. */
    latestVersionNumber(agentId: number): Promise<number | null> {
      return versions.maximum('versionNumber', { agentId });
    },

    /** Saves a new version and makes it the agent's current one. */
    async publishVersion(fields: DeepPartial<AgentVersion> & { agentId: number }): Promise<AgentVersion> {
      const version = await versions.save(versions.create(fields));
      await rows.update({ id: fields.agentId }, { currentDefinitionId: version.id });
      return version;
    },

    async archiveVersion(id: number): Promise<void> {
      await versions.update({ id }, { status: 'archived' });
    },

    /** Empties the agent's rows of the trigger index. */
    async clearTriggers(agentId: number): Promise<void> {
      await triggers.delete({ agentId });
    },

    /** Adds a path to the trigger index; false when another agent holds it. */
    async claimTrigger(trigger: AgentTrigger): Promise<boolean> {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(AgentTrigger)
        .values(trigger)
        .orIgnore()
        .returning(['triggerPath'])
        .execute();
      return (inserted.raw as unknown[]).length > 0;
    },

    /** The agent a (lower-case) trigger path calls; null for an unknown path. */
    triggerTarget(triggerPath: string): Promise<Pick<AgentTrigger, 'agentId' | 'organizationId'> | null> {
      return triggers.findOne({ where: { triggerPath }, select: { agentId: true, organizationId: true } });
    },
  };
}

export type AgentStatements = ReturnType<typeof agentStatements>;

export const createAgentRepository = (dataSource: DataSource) => repositoryOver(dataSource, agentStatements);

export type AgentRepository = ReturnType<typeof createAgentRepository>;
