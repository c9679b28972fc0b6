import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import request from 'supertest';
import { Run } from '../../entities';
import type { TestServer } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';
import { FakeProviderServer } from '../telephony/helpers/fake-provider-server';

const services = useTestServices();

// Telnyx signs webhooks with a key its customers paste into configurations: anyone can copy it.
const telnyxKeys = generateKeyPairSync('ed25519');
const publicKey = telnyxKeys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const NUMBER = '+14155551077';

let fake: FakeProviderServer;
let app: TestServer;
let victim: CallingOrganization;
const started: string[] = [];

/** A configuration holding NUMBER, bound to the organization's agent. */
async function holdNumber(org: CallingOrganization, config: Record<string, unknown>): Promise<void> {
  const configuration = await createTelephonyConfig(app, org.owner.token, { provider: 'telnyx', ...config });
  const number = await createPhoneNumber(app, org.owner.token, configuration.id, { address: NUMBER });
  await services.db.dataSource.query('UPDATE phone_numbers SET inbound_workflow_id = $1 WHERE id = $2', [
    org.agent.id,
    number.id,
  ]);
}

beforeAll(async () => {
  fake = await FakeProviderServer.start();
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue('inbound-routing'),
      PUBLIC_BASE_URL: 'https://sb.example.com',
      SECRETS_KEY: TEST_SECRETS_KEY,
      TELEPHONY_API_BASE_URL: fake.url,
    },
  ).app.callback();
  // The attackers register first, so their configurations are the older ones: one names no
  // connection (it verifies any webhook signed with the copied key), one another connection.
  await holdNumber(await callingOrganization(app), { api_key: 'KEY-ATTACKER-1', webhook_public_key: publicKey });
  await holdNumber(await callingOrganization(app), {
    api_key: 'KEY-ATTACKER-2',
    connection_id: 'conn-attacker',
    webhook_public_key: publicKey,
  });
  victim = await callingOrganization(app);
  await holdNumber(victim, { api_key: 'KEY-VICTIM', connection_id: 'conn-victim', webhook_public_key: publicKey });
});

afterAll(async () => {
  await terminateAll(services.temporal.client, started);
  await fake.close();
});

function signedCall(connectionId: string, callId: string) {
  const body = JSON.stringify({
    data: {
      event_type: 'call.initiated',
      payload: {
        call_control_id: callId,
        direction: 'incoming',
        from: '+14155550199',
        to: NUMBER,
        connection_id: connectionId,
      },
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`), telnyxKeys.privateKey).toString('base64');
  return request(app)
    .post('/api/v1/telephony/telnyx/inbound')
    .set('content-type', 'application/json')
    .set({ 'telnyx-timestamp': timestamp, 'telnyx-signature-ed25519': signature })
    .send(body);
}

describe('two organizations holding the same number', () => {
  it("routes a call on the victim's connection to the victim, not to an older configuration of the attacker", async () => {
    const callId = `telnyx-${randomUUID()}`;
    fake.answer({ status: 200, body: { data: { result: 'ok' } } });
    const res = await signedCall('conn-victim', callId);
    expect(res.status).toBe(200);
    const runs = await services.db.dataSource.getRepository(Run).findBy({ provider: 'telnyx', providerCallId: callId });
    expect(runs).toHaveLength(1);
    started.push(`call-${runs[0]?.id}`);
    expect(runs[0]).toMatchObject({ organizationId: victim.owner.user.organization_id, agentId: victim.agent.id });
    // The answer command went out with the victim's key, not an attacker's.
    expect(fake.onlyRequest().headers.authorization).toBe('Bearer KEY-VICTIM');
  });
});
