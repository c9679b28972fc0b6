import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DataSource, EntityManager } from 'typeorm';
import type { Agent, AgentVersion } from '../../entities';
import { createAgentRepository, type AgentStatements } from '../../entities/repositories/agent.repository';
import { credentialStatements } from '../../entities/repositories/credential.repository';
import { toolStatements } from '../../entities/repositories/tool.repository';
import type { Actor } from '../actor';
import { NotFoundError } from '../errors';
import type { AgentGraph } from './agent-graph';
import type { Quotas } from '../quotas';
import type { Secrets } from '../../telephony/secrets';
import { checkCredentialReferences } from './agent-credentials';
import { sealAgentSecrets } from './agent-secrets';
import { assertToolReferences } from '../tools/agent-tool-rules';
import { syncTriggers, withTriggerPaths } from './triggers';

export const workflowNotFound = (id: number) => new NotFoundError(`Workflow with id ${id} not found`);

/** What a version holds; every change to it makes a new version. */
export interface VersionContent {
  workflowDefinition: AgentGraph;
  workflowConfigurations: Record<string, unknown>;
  templateContextVariables: Record<string, unknown>;
}

export interface AgentChanges extends Partial<VersionContent> {
  name?: string;
}

/** What saving a version needs besides the database: quotas, and the key that seals its secrets. */
export interface AgentSaving {
  quotas: Quotas;
  secrets: Secrets;
}

/**
 * A definition as a version stores it: credentials it names checked (422 at the node) and its
 * secrets sealed, a secret sent back masked keeping the one `previous` holds.
 */
async function storableDefinition(
  manager: EntityManager,
  caller: Actor,
  secrets: Secrets,
  definition: AgentGraph,
  previous: AgentGraph | null,
): Promise<AgentGraph> {
  await checkCredentialReferences(credentialStatements(manager), caller.organizationId, definition);
  return sealAgentSecrets(definition, previous, secrets);
}

// Stored definitions were validated by the WorkflowDefinition schema before they were written.
const storedDefinition = (version: AgentVersion) => version.workflowDefinition as AgentGraph;

/** Compared as JSON, as PostgreSQL returns it (no `undefined` keys). */
const sameJson = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a)), b);

async function publishVersion(agents: AgentStatements, agent: Agent, content: VersionContent, number: number) {
  await agents.publishVersion({ agentId: agent.id, versionNumber: number, status: 'published', ...content });
  await syncTriggers(agents, agent, content.workflowDefinition);
}

/** Creates an agent with version 1 published; returns its id. */
export async function createAgent(
  dataSource: DataSource,
  caller: Actor,
  { quotas, secrets }: AgentSaving,
  name: string,
  content: VersionContent,
): Promise<number> {
  return createAgentRepository(dataSource).transaction(async (agents, manager) => {
    await assertToolReferences(toolStatements(manager), caller.organizationId, content.workflowDefinition);
    const agent = await agents.insert({
      organizationId: caller.organizationId,
      workflowUuid: randomUUID(),
      name,
      currentDefinitionId: null,
    });
    const workflowDefinition = await storableDefinition(
      manager,
      caller,
      secrets,
      withTriggerPaths(content.workflowDefinition),
      null,
    );
    await publishVersion(agents, agent, { ...content, workflowDefinition }, 1);
    await quotas.claim(manager, 'agents', caller.organizationId);
    return agent.id;
  });
}

/**
 * Applies a PUT. A change to the definition, configurations or variables publishes version n+1 and
 * archives the previous one; a name alone makes no version. The agent row is locked for the whole
 * transaction, so concurrent updates take turns and never pick the same number (the unique
 * (agent_id, version_number) constraint backs this up).
 */
export async function updateAgent(
  dataSource: DataSource,
  caller: Actor,
  { quotas, secrets }: AgentSaving,
  id: number,
  changes: AgentChanges,
): Promise<void> {
  await createAgentRepository(dataSource).transaction(async (agents, manager) => {
    const agent = await agents.lockOwned(caller.organizationId, id);
    if (!agent?.currentDefinitionId) throw workflowNotFound(id);
    if (changes.workflowDefinition) {
      await assertToolReferences(toolStatements(manager), caller.organizationId, changes.workflowDefinition);
    }
    const current = await agents.version(agent.currentDefinitionId);
    const next: VersionContent = {
      workflowDefinition: changes.workflowDefinition
        ? await storableDefinition(
            manager,
            caller,
            secrets,
            withTriggerPaths(changes.workflowDefinition, storedDefinition(current)),
            storedDefinition(current),
          )
        : storedDefinition(current),
      workflowConfigurations: changes.workflowConfigurations ?? current.workflowConfigurations,
      templateContextVariables: changes.templateContextVariables ?? current.templateContextVariables,
    };
    const changed =
      !sameJson(next.workflowDefinition, current.workflowDefinition) ||
      !sameJson(next.workflowConfigurations, current.workflowConfigurations) ||
      !sameJson(next.templateContextVariables, current.templateContextVariables);
    if (changes.name !== undefined && changes.name !== agent.name) {
      await agents.rename(id, changes.name);
    }
    if (!changed) return;
    const latest = await agents.latestVersionNumber(id);
    await agents.archiveVersion(current.id);
    await publishVersion(agents, agent, next, (latest ?? 0) + 1);
    await quotas.claim(manager, 'agent_versions', id);
  });
}

/** Archives or restores an agent; 404 outside the caller's organization. */
export async function setAgentStatus(
  dataSource: DataSource,
  caller: Actor,
  id: number,
  status: Agent['status'],
): Promise<void> {
  if (!(await createAgentRepository(dataSource).setStatus(caller.organizationId, id, status))) {
    throw workflowNotFound(id);
  }
}
