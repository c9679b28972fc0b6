import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { createActivities } from '../../activities';
import { converse } from '../../agent-runtime';
import { Run } from '../../entities';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { signalCallStatus } from '../../domain/calls/call-status-signal';
import { AriListener, type AriInboundCall } from '../../telephony/providers/ari/listener';
import { createApiKey, signUp, type SignedUp } from '../helpers/accounts';
import { createAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { definitionWithTrigger, triggerPathOf } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { ARI_PASSWORD, ARI_USER, FakeAsterisk, type ScriptStep } from './helpers/fake-asterisk';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

/** What Asterisk does with a call to each number. */
const SCRIPTS: Record<string, ScriptStep[]> = {
  // Rings, is answered (enters our Stasis app with its args), and hangs up a second later.
  '+14155550001': [
    { afterMs: 50, type: 'ChannelStateChange', state: 'Ringing' },
    { afterMs: 150, type: 'StasisStart', state: 'Up' },
    { afterMs: 1150, type: 'ChannelDestroyed', state: 'Up', cause: 16 },
  ],
  // Rings, then the callee is busy (Q.850 cause 17) without ever answering.
  '+14155550002': [
    { afterMs: 50, type: 'ChannelStateChange', state: 'Ringing' },
    { afterMs: 300, type: 'ChannelDestroyed', state: 'Ring', cause: 17 },
  ],
};

const asterisk = new FakeAsterisk(SCRIPTS);
let app: ReturnType<typeof buildTestApp>['app'];
let owner: SignedUp;
let apiKey: string;
let triggerPath: string;
let taskQueue: string;
let worker: Worker;
let workerRun: Promise<void>;
let listener: AriListener;
const inboundCalls: AriInboundCall[] = [];

let configurationId: number;
let stasisApp: string;

/** Calls `number` through the API on the ARI configuration and waits for the run to complete. */
async function callAndWait(number: string): Promise<Run> {
  const res = await request(app.callback())
    .post(`/api/v1/public/agent/${triggerPath}`)
    .set('X-API-Key', apiKey)
    .send({
      phone_number: number,
      telephony_configuration_id: configurationId,
      initial_context: { first_name: 'Ada' },
    });
  expect(res.status).toBe(200);
  const runId = res.body.workflow_run_id as number;
  await services.temporal.client.workflow.getHandle(res.body.workflow_run_name as string).result();
  return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
}

describe('the worker ARI listener', () => {
  // Inside the describe: these run before the file's services close their connections.
  beforeAll(async () => {
    await asterisk.listen();
    taskQueue = uniqueTaskQueue('ari-listener');
    app = buildTestApp(
      { dataSource: services.db.dataSource, temporal: services.temporal.client },
      { TEMPORAL_TASK_QUEUE: taskQueue, SECRETS_KEY: TEST_SECRETS_KEY },
    ).app;
    owner = await signUp(app.callback());
    ({ api_key: apiKey } = await createApiKey(app.callback(), owner.token));
    triggerPath = triggerPathOf(await createAgent(app.callback(), owner.token, definitionWithTrigger()));

    worker = await Worker.create({
      connection: services.temporal.nativeConnection,
      taskQueue,
      workflowBundle: testWorkflowBundle(),
      dataConverter: testDataConverter,
      activities: createActivities({
        dataSource: services.db.dataSource,
        workerIdentity: 'ari-listener-test',
        calls: {
          secrets,
          settings: {
            publicBaseUrl: 'http://127.0.0.1:1',
            pricePerMinuteUsd: 0,
            pricePer1kTokensUsd: 0,
            allowPrivateAriEndpoints: true,
          },
          converse,
          temporal: services.temporal.client,
        },
      }),
    });
    workerRun = worker.run();
    listener = new AriListener({
      dataSource: services.db.dataSource,
      signalCallStatus: (run, status) => signalCallStatus(services.temporal.client, run, status),
      secrets,
      logger: createLogger('silent', 'ari-listener-test'),
      // The fake Asterisk listens on loopback.
      allowPrivateEndpoints: true,
      // Long: the change probe, not the periodic rescan, must pick up created and deleted configurations.
      rescanMs: 60_000,
      changeProbeMs: 100,
      reconnectMs: 50,
      maxReconnectMs: 400,
      onInboundCall: (call) => {
        inboundCalls.push(call);
        return Promise.resolve();
      },
    });
    await listener.start();
  }, 60_000);

  afterAll(async () => {
    await listener.stop();
    worker.shutdown();
    await workerRun;
    await asterisk.close();
  });

  it('connects to an ARI configuration created after it started', async () => {
    const configuration = await createTelephonyConfig(app.callback(), owner.token, {
      provider: 'ari',
      ari_endpoint: `${asterisk.url}/ari`,
      app_name: ARI_USER,
      app_password: ARI_PASSWORD,
      // Server-managed: whatever a client sends, the server mints its own.
      stasis_app_name: 'switchboard_chosen_by_client',
    });
    configurationId = configuration.id;
    stasisApp = String(configuration.credentials.stasis_app_name);
    expect(stasisApp).toMatch(/^switchboard_[0-9a-f]{12}$/);
    await waitFor('the listener is connected', () => listener.connectedConfigurations().includes(configurationId));
    expect(asterisk.openSockets()).toHaveLength(1);
  });

  it('signals the events of an answered call to its workflow, which completes the run', async () => {
    const run = await callAndWait('+14155550001');
    expect(run.isCompleted).toBe(true);
    expect(run.gatheredContext.call_status).toBe('completed');
    expect(run.providerCallId).toMatch(/^switchboard-[0-9a-f]{32}$/);
    expect(run.callDurationSeconds).toBe(1);
    // An Asterisk call is live: its conversation runs on the media stream, and none was opened here.
    expect(run.transcriptUrl).toBeNull();
  }, 30_000);

  it('ends an unanswered busy call as busy', async () => {
    const run = await callAndWait('+14155550002');
    expect(run.gatheredContext.call_status).toBe('busy');
    expect(run.callDurationSeconds).toBe(0);
  }, 30_000);

  it('reconnects with backoff after Asterisk drops the socket and refuses the first reconnect', async () => {
    const before = asterisk.connections.length;
    asterisk.refuseUpgrades = 1;
    asterisk.dropAll();
    await waitFor('the listener reconnected', () => asterisk.openSockets().length === 1);
    expect(asterisk.refusedUpgrades).toBe(1);
    expect(asterisk.connections.length).toBe(before + 1);
    // Events flow again on the new socket.
    const run = await callAndWait('+14155550001');
    expect(run.gatheredContext.call_status).toBe('completed');
  }, 30_000);

  it('hands a StasisStart of a channel no run knows to the inbound handler', async () => {
    const event = {
      type: 'StasisStart',
      args: [],
      channel: {
        id: 'inbound-channel-1',
        state: 'Ring',
        caller: { number: '+15559990000' },
        dialplan: { exten: '2001' },
      },
    };
    asterisk.emit(stasisApp, event);
    await waitFor('the inbound handler ran', () => inboundCalls.length === 1);
    expect(inboundCalls[0]).toMatchObject({ channelId: 'inbound-channel-1', event: { type: 'StasisStart' } });
    expect(inboundCalls[0]?.configuration.id).toBe(configurationId);
  });

  it('reconnects with the new credentials when the configuration changes', async () => {
    const [previous] = asterisk.openSockets();
    asterisk.password = 'a-rotated-ari-password';
    const res = await request(app.callback())
      .put(`/api/v1/organizations/telephony-configs/${configurationId}`)
      .auth(owner.token, { type: 'bearer' })
      .send({ config: { provider: 'ari', app_password: 'a-rotated-ari-password' } });
    expect(res.status).toBe(200);
    await waitFor('the listener reconnected', () => {
      const open = asterisk.openSockets();
      return open.length === 1 && open[0] !== previous;
    });
  });

  it('closes the socket of a deleted configuration', async () => {
    const res = await request(app.callback())
      .delete(`/api/v1/organizations/telephony-configs/${configurationId}`)
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBeLessThan(300);
    await waitFor('the socket is closed', () => asterisk.openSockets().length === 0);
    expect(listener.connectedConfigurations()).toEqual([]);
  });
});
