import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { attachMediaServer, type MediaServer } from '../../api/media/media-server';
import { Run } from '../../entities';
import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferStatus,
} from '../../telephony/provider';
import { ariProvider } from '../../telephony/providers/ari';
import { ariEndpointPolicy } from '../../telephony/providers/ari/endpoint';
import { AriListener } from '../../telephony/providers/ari/listener';
import { transferChannelIdFor } from '../../telephony/providers/ari/transfer-bridge';
import { Secrets } from '../../telephony/secrets';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { ARI_PASSWORD, ARI_USER, FakeAsterisk, type AriRequest, type ScriptStep } from './helpers/fake-asterisk';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

const ANSWERS = '+14155550701';
const BUSY = '+14155550702';
const RINGS = '+14155550703';
const ringing: ScriptStep = { afterMs: 30, type: 'ChannelStateChange', state: 'Ringing' };
const asterisk = new FakeAsterisk({
  [ANSWERS]: [ringing, { afterMs: 200, type: 'StasisStart', state: 'Up' }],
  [BUSY]: [ringing, { afterMs: 200, type: 'ChannelDestroyed', state: 'Busy', cause: 17 }],
  [RINGS]: [ringing],
});

let http: Server;
let recordingsDir: string;
let media: MediaServer;
let org: CallingOrganization;
let configurationId: number;
let stasisApp: string;
let listener: AriListener;
let transfer: TelephonyTransfer;
/** What the listener signalled to the call workflows, by run. */
const signalled: { runId: number; status: TransferStatus; transferId: string }[] = [];

const newRun = (fields: Partial<Run> = {}) =>
  services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'ari transfer',
    provider: 'ari',
    callType: 'outbound',
    state: 'running',
    telephonyConfigurationId: configurationId,
    ...fields,
  });

const bridgeMembers = (runId: number) => [...(asterisk.bridges.get(`sb-bridge-${runId}`) ?? [])].sort();

/** An answered call of a new run, bridged with the agent's media channel. */
async function bridgedCall(): Promise<{ run: Run; caller: string }> {
  const caller = `switchboard-caller-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
  const run = await newRun({ providerCallId: caller });
  asterisk.enterStasis(stasisApp, caller, { args: [`run_id=${run.id}`] });
  await waitFor(
    'the call is bridged to the media endpoint',
    () => bridgeMembers(run.id).join() === [caller, `sb-media-${run.id}`].sort().join(),
  );
  return { run, caller };
}

const startRequest = (run: Run, caller: string, destination: string): StartTransferRequest => ({
  runId: run.id,
  providerCallId: caller,
  destination,
  from: '+14155550100',
  mode: 'blind',
  announcement: null,
  holdAudioUrl: 'https://sb.example.com/api/v1/telephony/hold-audio.wav',
  holdAudioMp3Url: 'https://sb.example.com/api/v1/telephony/hold-audio.mp3',
  ringTimeoutSeconds: 20,
  idempotencyKey: `call-${run.id}:transfer-1`,
  transferCallbackUrl: `https://sb.example.com/api/v1/telephony/ari/transfer/${run.id}`,
  answerUrl: `https://sb.example.com/api/v1/telephony/ari/answer/${run.id}`,
  mediaStreamUrl: `wss://sb.example.com/api/v1/telephony/ari/media/${run.id}`,
});

const signalOf = (runId: number) => signalled.find((signal) => signal.runId === runId);
const withoutGets = (requests: AriRequest[]) => requests.filter((request) => request.method !== 'GET');

beforeAll(async () => {
  await asterisk.listen();
  recordingsDir = await mkdtemp(join(tmpdir(), 'ari-transfer-'));
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { app } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY, RECORDINGS_DIR: recordingsDir },
  );
  media = attachMediaServer(http, {
    dataSource: services.db.dataSource,
    secrets,
    recordings: new DiskRecordingStore(recordingsDir),
    logger: pino({ level: 'silent' }),
  });
  asterisk.websocketClients.set('switchboard', `${baseUrl.replace(/^http/, 'ws')}/api/v1/telephony/ari/media`);
  org = await callingOrganization(app.callback());
  const configuration = await createTelephonyConfig(app.callback(), org.owner.token, {
    provider: 'ari',
    ari_endpoint: asterisk.url,
    app_name: ARI_USER,
    app_password: ARI_PASSWORD,
  });
  configurationId = configuration.id;
  stasisApp = String(configuration.credentials.stasis_app_name);
  transfer = ariProvider.create(
    ariProvider.configSchema.parse({
      ari_endpoint: asterisk.url,
      app_name: ARI_USER,
      app_password: ARI_PASSWORD,
      stasis_app_name: stasisApp,
    }),
    { endpointPolicy: ariEndpointPolicy(true), timeoutMs: 5_000 },
  ).transfer!;
  listener = new AriListener({
    dataSource: services.db.dataSource,
    signalCallStatus: () => Promise.resolve(true),
    signalTransferStatus: (run, update) => {
      signalled.push({ runId: run.id, ...update });
      return Promise.resolve(true);
    },
    secrets,
    logger: pino({ level: 'silent' }),
    allowPrivateEndpoints: true,
    rescanMs: 60_000,
    changeProbeMs: 100,
    reconnectMs: 50,
    maxReconnectMs: 200,
  });
  await listener.start();
  await waitFor('the listener is connected', () => listener.connectedConfigurations().includes(configurationId));
}, 60_000);

afterAll(async () => {
  await listener.stop();
  await media.close();
  await asterisk.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await rm(recordingsDir, { recursive: true, force: true });
});

describe('ARI transfers', () => {
  it('offers blind transfers only', () => {
    expect(ariProvider.transferModes).toEqual(['blind']);
  });

  it('originates the destination into the app, takes the agent out of the bridge and plays music on hold', async () => {
    const { run, caller } = await bridgedCall();
    const from = asterisk.requests.length;

    const { transferId } = await transfer.start(startRequest(run, caller, RINGS));

    expect(transferId).toBe(transferChannelIdFor(run.id, `call-${run.id}:transfer-1`));
    const bridge = `/ari/bridges/sb-bridge-${run.id}`;
    expect(asterisk.requestsSince(from)).toEqual([
      {
        method: 'POST',
        path: `/ari/channels/${transferId}`,
        query: {
          endpoint: `PJSIP/${RINGS}`,
          app: stasisApp,
          appArgs: `transfer_run_id=${run.id}`,
          timeout: '20',
          callerId: '+14155550100',
        },
      },
      { method: 'POST', path: `${bridge}/removeChannel`, query: { channel: `sb-media-${run.id}` } },
      { method: 'POST', path: `${bridge}/moh`, query: {} },
    ]);
    expect(bridgeMembers(run.id)).toEqual([caller]);
    expect(asterisk.musicOnHold.has(`sb-bridge-${run.id}`)).toBe(true);
    await waitFor('the destination rings', () => asterisk.channels.get(transferId)?.state === 'Ringing');
    await expect(transfer.status(caller, transferId)).resolves.toMatchObject({ status: 'ringing', transferId });

    // A repeated start (a retried activity) dials nothing new.
    const again = asterisk.requests.length;
    await expect(transfer.start(startRequest(run, caller, RINGS))).resolves.toEqual({ transferId });
    expect(asterisk.requestsSince(again)[0]?.path).toBe(`/ari/channels/${transferId}`);
    expect([...asterisk.channels.keys()].filter((id) => id === transferId)).toHaveLength(1);

    // The ring timeout passes: canceled, the destination is hung up and the agent is back. The
    // listener, seeing the destination's channel destroyed, takes the same steps again (harmless).
    const cancelFrom = asterisk.requests.length;
    await transfer.cancel(caller, transferId);
    await waitFor('the listener reports the transfer over', () => signalOf(run.id) !== undefined);
    expect(signalOf(run.id)).toEqual({ runId: run.id, status: 'no-answer', transferId });
    const steps = [
      { method: 'DELETE', path: `/ari/channels/${transferId}`, query: { reason: 'normal' } },
      { method: 'DELETE', path: `${bridge}/moh`, query: {} },
      { method: 'POST', path: `${bridge}/addChannel`, query: { channel: `sb-media-${run.id}` } },
    ];
    const sent = withoutGets(asterisk.requestsSince(cancelFrom));
    expect(sent.slice(0, 1)).toEqual(steps.slice(0, 1));
    expect(sent).toEqual(expect.arrayContaining(steps));
    for (const request of sent) expect(steps).toContainEqual(request);
    expect(bridgeMembers(run.id)).toEqual([caller, `sb-media-${run.id}`].sort());
    expect(asterisk.musicOnHold.has(`sb-bridge-${run.id}`)).toBe(false);
    await expect(transfer.status(caller, transferId)).resolves.toBeNull();
  });

  it('answered: the destination joins the caller, the music stops and the media channel is hung up', async () => {
    const { run, caller } = await bridgedCall();
    const { transferId } = await transfer.start(startRequest(run, caller, ANSWERS));

    await waitFor('the listener reports the answer', () => signalOf(run.id) !== undefined);
    expect(signalOf(run.id)).toEqual({ runId: run.id, status: 'answered', transferId });
    expect(bridgeMembers(run.id)).toEqual([caller, transferId].sort());
    expect(asterisk.musicOnHold.has(`sb-bridge-${run.id}`)).toBe(false);
    await waitFor('the media channel is hung up', () => !asterisk.channels.has(`sb-media-${run.id}`));
    // A look-up (events missed) finds it answered and repeats the join harmlessly.
    await expect(transfer.status(caller, transferId)).resolves.toMatchObject({ status: 'answered', transferId });
    expect(bridgeMembers(run.id)).toEqual([caller, transferId].sort());

    // The person hangs up: the caller, alone in the bridge, is hung up too.
    asterisk.hangUp(transferId, 16);
    await waitFor('the caller is hung up', () => !asterisk.channels.has(caller));
  });

  it('the caller hangs up after the join: the destination is hung up too', async () => {
    const { run, caller } = await bridgedCall();
    const { transferId } = await transfer.start(startRequest(run, caller, ANSWERS));
    await waitFor('the listener reports the answer', () => signalOf(run.id)?.status === 'answered');

    asterisk.hangUp(caller, 16);
    await waitFor('the destination is hung up', () => !asterisk.channels.has(transferId));
  });

  it('busy: the caller goes back to the agent and the workflow learns why', async () => {
    const { run, caller } = await bridgedCall();
    const { transferId } = await transfer.start(startRequest(run, caller, BUSY));

    await waitFor('the listener reports the busy line', () => signalOf(run.id) !== undefined);
    expect(signalOf(run.id)).toEqual({ runId: run.id, status: 'busy', transferId });
    expect(bridgeMembers(run.id)).toEqual([caller, `sb-media-${run.id}`].sort());
    expect(asterisk.musicOnHold.has(`sb-bridge-${run.id}`)).toBe(false);
  });

  it('takes no webhook: Asterisk reports transfers over its events WebSocket', () => {
    expect(() =>
      transfer.parseWebhook({ method: 'POST', url: 'https://sb.example.com/x', headers: {}, rawBody: '{}' }),
    ).toThrow(ProviderError);
  });
});
