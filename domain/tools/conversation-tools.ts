import type { DataSource } from 'typeorm';
import type { ConversationTools } from '../../agent-runtime/tools';
import { createRetriever, withKnowledgeBase } from '../knowledge-base/retrieval-tool';
import { ToolRunner, type ToolRunnerDeps } from './tool-runner';
import { activeTools, runnableTool } from './tools';

/** Every `key` entry (`tool_uuids`, `document_uuids`) of a stored graph's nodes. */
function referenced(definition: Record<string, unknown>, key: 'tool_uuids' | 'document_uuids'): string[] {
  const nodes = Array.isArray(definition.nodes) ? (definition.nodes as { data?: Record<string, unknown> }[]) : [];
  const uuids = nodes.flatMap((node): unknown[] =>
    Array.isArray(node.data?.[key]) ? (node.data[key] as unknown[]) : [],
  );
  return [...new Set(uuids.filter((uuid): uuid is string => typeof uuid === 'string'))];
}

/**
 * The tools a run's conversation may use: the organization's active tools its graph names, read
 * when the conversation starts (a tool archived since the agent was saved is not offered), and the
 * knowledge base's retrieval at nodes with documents (read at each retrieval). Undefined when the
 * graph names neither.
 */
export async function loadConversationTools(
  dataSource: DataSource,
  deps: ToolRunnerDeps,
  run: { id: number; organizationId: number; initialContext: Record<string, unknown> },
  definition: Record<string, unknown>,
): Promise<ConversationTools | undefined> {
  const uuids = referenced(definition, 'tool_uuids');
  const documents = referenced(definition, 'document_uuids');
  if (uuids.length === 0 && documents.length === 0) return undefined;
  const rows = uuids.length === 0 ? [] : await activeTools(dataSource, run.organizationId, uuids);
  const stored = new ToolRunner(deps, run.organizationId).forConversation(
    rows.map(runnableTool),
    run.id,
    run.initialContext,
  );
  return documents.length === 0
    ? stored
    : withKnowledgeBase(stored, createRetriever({ db: dataSource, outbound: deps }, run.organizationId));
}
