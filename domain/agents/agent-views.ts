import type { DataSource } from 'typeorm';
import { AgentVersion } from '../../entities';
import type { Secrets } from '../../telephony/secrets';
import type { Actor } from '../actor';
import { maskAgentSecrets } from './agent-secrets';
import type { AgentGraph } from './agent-graph';
import { workflowNotFound } from './agent-versions';
import type { AgentListView, AgentVersionView as VersionView, AgentView } from './types';

interface AgentRow {
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

/** The agent with its current version and run count, in one query. */
const AGENT_QUERY = `
  SELECT a.id, a.name, a.status, a.created_at, a.workflow_uuid, a.current_definition_id, a.call_disposition_codes,
         v.version_number, v.status AS version_status, v.workflow_definition, v.workflow_configurations,
         v.template_context_variables,
         (SELECT count(*) FROM runs r WHERE r.workflow_id = a.id)::int AS total_runs
    FROM agents a
    JOIN agent_versions v ON v.id = a.current_definition_id
   WHERE a.organization_id = $1`;

/**
 * An agent as the API answers it, its secrets masked; 404 "Workflow with id {id} not found" outside
 * the caller's organization.
 */
export async function agentView(
  dataSource: DataSource,
  secrets: Secrets,
  caller: Actor,
  id: number,
): Promise<AgentView> {
  const [row] = await dataSource.query<AgentRow[]>(`${AGENT_QUERY} AND a.id = $2`, [caller.organizationId, id]);
  if (!row) throw workflowNotFound(id);
  return {
    ...row,
    workflow_definition: maskAgentSecrets(row.workflow_definition, secrets),
    created_at: row.created_at.toISOString(),
  };
}

/** The organization's agents, newest first, optionally only `active` or `archived` ones. */
export async function agentList(
  dataSource: DataSource,
  caller: Actor,
  status: AgentView['status'] | undefined,
): Promise<AgentListView[]> {
  const rows = await dataSource.query<AgentRow[]>(
    `${AGENT_QUERY} AND ($2::text IS NULL OR a.status = $2) ORDER BY a.created_at DESC, a.id DESC`,
    [caller.organizationId, status ?? null],
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: row.created_at.toISOString(),
    total_runs: row.total_runs,
    workflow_uuid: row.workflow_uuid,
    current_definition_id: row.current_definition_id,
    version_number: row.version_number,
  }));
}

/** Every version of an agent the caller owns, newest first, secrets masked. */
export async function versionList(
  dataSource: DataSource,
  secrets: Secrets,
  caller: Actor,
  id: number,
): Promise<VersionView[]> {
  const versions = await dataSource
    .getRepository(AgentVersion)
    .createQueryBuilder('v')
    .innerJoin('agents', 'a', 'a.id = v.agent_id')
    .where('v.agent_id = :id AND a.organization_id = :organizationId', { id, organizationId: caller.organizationId })
    .orderBy('v.version_number', 'DESC')
    .getMany();
  if (versions.length === 0) throw workflowNotFound(id);
  return versions.map((version) => ({
    id: version.id,
    version_number: version.versionNumber,
    // Only `published` and `archived` are ever written (no drafts: see docs/guides/agents.md).
    status: version.status as VersionView['status'],
    created_at: version.createdAt.toISOString(),
    workflow_definition: maskAgentSecrets(version.workflowDefinition as AgentGraph, secrets),
    workflow_configurations: version.workflowConfigurations,
    template_context_variables: version.templateContextVariables,
  }));
}
