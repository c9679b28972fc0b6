import type { DataSource } from 'typeorm';
import { createAgentRepository } from '../../entities/repositories/agent.repository';
import type { Secrets } from '../../telephony/secrets';
import type { Actor } from '../actor';
import { maskAgentSecrets } from './agent-secrets';
import type { AgentGraph } from './agent-graph';
import { workflowNotFound } from './agent-versions';
import type { AgentListView, AgentVersionView as VersionView, AgentView } from './types';

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
  const row = await createAgentRepository(dataSource).agentRow(caller.organizationId, id);
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
  const rows = await createAgentRepository(dataSource).agentRows(caller.organizationId, status);
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
  const versions = await createAgentRepository(dataSource).versionsOf(caller.organizationId, id);
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
