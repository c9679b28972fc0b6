import type { DataSource } from 'typeorm';
import type { ConversationTools } from '../../agent-runtime/tools';
import { ToolRunner, type ToolRunnerDeps } from './tool-runner';
import { activeTools, runnableTool } from './tools';

/** Every `tool_uuids` entry of a stored graph. */
function referencedTools(definition: Record<string, unknown>): string[] {
  const nodes = Array.isArray(definition.nodes) ? (definition.nodes as { data?: { tool_uuids?: unknown } }[]) : [];
  const uuids = nodes.flatMap((node): unknown[] =>
    Array.isArray(node.data?.tool_uuids) ? (node.data.tool_uuids as unknown[]) : [],
  );
  return [...new Set(uuids.filter((uuid): uuid is string => typeof uuid === 'string'))];
}

/**
 * The tools a run's conversation may use: the organization's active tools its graph names, read
 * when the conversation starts (a tool archived since the agent was saved is not offered).
 * Undefined when the graph names none.
 */
export async function loadConversationTools(
  dataSource: DataSource,
  deps: ToolRunnerDeps,
  run: { id: number; organizationId: number; initialContext: Record<string, unknown> },
  definition: Record<string, unknown>,
): Promise<ConversationTools | undefined> {
  const uuids = referencedTools(definition);
  if (uuids.length === 0) return undefined;
  const rows = await activeTools(dataSource, run.organizationId, uuids);
  return new ToolRunner(deps, run.organizationId).forConversation(rows.map(runnableTool), run.id, run.initialContext);
}
