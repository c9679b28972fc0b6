import request from 'supertest';
import type { TestServer } from './accounts';
import { sampleDefinition } from './agents';

export interface TransferringAgent {
  workflowId: number;
  triggerPath: string;
}

/**
 * An agent with an API trigger whose start node offers a transfer tool: the offline policy calls
 * it when the callee's reply shares a word with its description ("sounds good" → "sounds").
 * `extraNodes` join its graph (a QA node, say).
 */
export async function transferringAgent(
  server: TestServer,
  token: string,
  config: Record<string, unknown>,
  extraNodes: object[] = [],
  description = 'Transfer when the caller sounds interested',
): Promise<TransferringAgent> {
  const tool = await request(server)
    .post('/api/v1/tools')
    .auth(token, { type: 'bearer' })
    .send({
      name: 'Put through',
      description,
      definition: { type: 'transfer_call', config: { message: 'Let me put you through.', ...config } },
    });
  if (tool.status !== 201) throw new Error(`tool creation answered ${tool.status}: ${JSON.stringify(tool.body)}`);
  const definition = sampleDefinition();
  const start = definition.nodes[0] as { data: Record<string, unknown> };
  start.data = { ...start.data, tool_uuids: [tool.body.tool_uuid] };
  const nodes = [
    ...definition.nodes,
    { id: 'api', type: 'trigger', position: { x: 200, y: 0 }, data: { name: 'API trigger' } },
    ...extraNodes,
  ];
  const agent = await request(server)
    .post('/api/v1/workflow/create/definition')
    .auth(token, { type: 'bearer' })
    .send({ name: `Transfers ${tool.body.tool_uuid}`, workflow_definition: { ...definition, nodes } });
  if (agent.status !== 201) throw new Error(`agent creation answered ${agent.status}: ${JSON.stringify(agent.body)}`);
  const trigger = (agent.body.workflow_definition.nodes as { type: string; data: { trigger_path?: string } }[]).find(
    (node) => node.type === 'trigger',
  );
  return { workflowId: agent.body.id as number, triggerPath: trigger?.data.trigger_path as string };
}
