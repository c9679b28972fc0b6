import request from 'supertest';
import { createApiKey, signUp, type SignedUp, type TestServer } from './accounts';
import { createAgent, sampleDefinition, type CreatedAgent } from './agents';
import { createPhoneNumber, createTelephonyConfig, type CreatedConfiguration } from './telephony';

/** The sample agent with an API trigger node (its trigger path is minted on save). */
export function definitionWithTrigger() {
  const definition = sampleDefinition();
  return {
    ...definition,
    nodes: [
      ...definition.nodes,
      { id: 'api', type: 'trigger', position: { x: 200, y: 0 }, data: { name: 'API trigger' } },
    ],
  };
}

export const triggerPathOf = (agent: CreatedAgent): string => {
  const path = agent.workflow_definition.nodes.find((node) => node.type === 'trigger')?.data.trigger_path;
  if (typeof path !== 'string') throw new Error('the agent has no trigger path');
  return path;
};

export interface CallingOrganization {
  owner: SignedUp;
  apiKey: string;
  agent: CreatedAgent;
  triggerPath: string;
  configuration: CreatedConfiguration;
  /** The configuration's first number, `+14155550100`. */
  callerNumberId: number;
}

/**
 * A new organization ready to call: an API key, an agent with a trigger, and a default outbound
 * simulator configuration (`simulator` fields as given) with one active number.
 */
export async function callingOrganization(
  server: TestServer,
  simulator: Record<string, unknown> = {},
): Promise<CallingOrganization> {
  const owner = await signUp(server);
  const { api_key: apiKey } = await createApiKey(server, owner.token);
  const agent = await createAgent(server, owner.token, definitionWithTrigger());
  const configuration = await createTelephonyConfig(server, owner.token, { provider: 'simulator', ...simulator });
  const res = await request(server)
    .post(`/api/v1/organizations/telephony-configs/${configuration.id}/set-default-outbound`)
    .auth(owner.token, { type: 'bearer' });
  if (res.status !== 200) throw new Error(`set-default-outbound answered ${res.status}`);
  const { id: callerNumberId } = await createPhoneNumber(server, owner.token, configuration.id, {
    address: '+14155550100',
  });
  return { owner, apiKey, agent, triggerPath: triggerPathOf(agent), configuration, callerNumberId };
}
