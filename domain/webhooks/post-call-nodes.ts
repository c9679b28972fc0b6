import type { WebhookNode } from '../agents/agent-graph';
import type { AgentVersionCache } from '../agents/version-cache';

/** A webhook node a finished call sends, as the call workflow schedules its delivery. */
export interface PostCallWebhook {
  nodeId: string;
  name: string;
}

const isWebhookNode = (node: { type: string }): node is WebhookNode => node.type === 'webhook';

/** The enabled webhook nodes of an agent version. */
export async function enabledWebhookNodes(versions: AgentVersionCache, agentVersionId: number): Promise<WebhookNode[]> {
  const version = await versions.get(agentVersionId);
  const nodes = (version.workflowDefinition.nodes ?? []) as { type: string }[];
  return nodes.filter(isWebhookNode).filter((node) => node.data.enabled);
}

/** What a finished call of that version sends. */
export async function postCallWebhooksOf(
  versions: AgentVersionCache,
  agentVersionId: number,
): Promise<PostCallWebhook[]> {
  return (await enabledWebhookNodes(versions, agentVersionId)).map((node) => ({
    nodeId: node.id,
    name: node.data.name,
  }));
}
