import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createAgentRepository, type AgentStatements } from '../../entities/repositories/agent.repository';
import { ConflictError } from '../errors';
import type { AgentGraph } from './agent-graph';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const triggerPaths = (definition: AgentGraph): string[] =>
  definition.nodes.flatMap((node) =>
    node.type === 'trigger' && node.data.trigger_path ? [node.data.trigger_path.toLowerCase()] : [],
  );

/**
 * Fills in a missing `trigger_path`: the agent's current path when it had one (so callers' URLs keep
 * working when a client sends a definition without it), otherwise a new UUID.
 */
export function withTriggerPaths(definition: AgentGraph, previous?: AgentGraph): AgentGraph {
  const kept = previous ? triggerPaths(previous)[0] : undefined;
  return {
    ...definition,
    nodes: definition.nodes.map((node) =>
      node.type === 'trigger' && !node.data.trigger_path
        ? { ...node, data: { ...node.data, trigger_path: kept ?? randomUUID() } }
        : node,
    ),
  };
}

/**
 * Rewrites the agent's rows of the trigger index to the paths of `definition`, inside the caller's
 * transaction. A path another agent holds answers 409; the primary key settles concurrent saves.
 */
export async function syncTriggers(
  agents: Pick<AgentStatements, 'clearTriggers' | 'claimTrigger'>,
  agent: { id: number; organizationId: number },
  definition: AgentGraph,
): Promise<void> {
  await agents.clearTriggers(agent.id);
  for (const path of triggerPaths(definition)) {
    const claimed = await agents.claimTrigger({
      triggerPath: path,
      agentId: agent.id,
      organizationId: agent.organizationId,
    });
    if (!claimed) {
      throw new ConflictError(`Trigger path ${path} is already used by another agent`);
    }
  }
}

/** The agent an API trigger path calls, in one indexed lookup; null for an unknown path. */
export async function resolveTrigger(
  dataSource: DataSource,
  triggerPath: string,
): Promise<{ agentId: number; organizationId: number } | null> {
  if (!UUID.test(triggerPath)) return null;
  return createAgentRepository(dataSource).triggerTarget(triggerPath.toLowerCase());
}
