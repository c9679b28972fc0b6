import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import WebSocket from 'ws';
import { attachMediaServer, type MediaServer } from '../../api/media/media-server';
import { Run } from '../../entities';
import { Secrets } from '../../telephony/secrets';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { mediaTokenKey, verifyMediaToken } from '../../voice/media-token';
import type { MediaSession } from '../../voice/media-session';
import { signalCallStatus } from '../../domain/calls/call-status-signal';
import { AriListener } from '../../telephony/providers/ari/listener';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { tone } from '../voice/audio-helpers';
import { ARI_PASSWORD, ARI_USER, FakeAsterisk, type AriRequest } from './helpers/fake-asterisk';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));
const asterisk = new FakeAsterisk();

let http: Server;
let recordingsDir: string;
let media: MediaServer;
let org: CallingOrganization;
let configurationId: number;
let stasisApp: string;
const listeners: AriListener[] = [];
const sessions: MediaSession[] = [];
/** Per run: caller samples the media stream heard, and whether it ended. */
const heard = new Map<number, number>();
const ended = new Set<number>();
/** Every line the listeners logged, parsed. */
const logs: { level: number; msg: string; [field: string]: unknown }[] = [];

/** A listener as the worker builds one, logging into `logs`. */
async function startListener(): Promise<AriListener> {
  const listener = new AriListener({
    dataSource: services.db.dataSource,
    signalCallStatus: (run, status) => signalCallStatus(services.temporal.client, run, status),
    secrets,
    logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) }),
    // The fake Asterisk listens on loopback.
    allowPrivateEndpoints: true,
    rescanMs: 60_000,
    changeProbeMs: 100,
    reconnectMs: 50,
    maxReconnectMs: 200,
    // What the inbound call service does, in short: the run of the answered channel.
    onInboundCall: async ({ channelId }) => {
      await newRun({ callType: 'inbound', providerCallId: channelId });
    },
  });
  listeners.push(listener);
  const sweeps = () => asterisk.requests.filter((r) => r.method === 'GET' && r.path === '/ari/channels').length;
  const before = sweeps();
  await listener.start();
  await waitFor('the listener is connected', () => listener.connectedConfigurations().includes(configurationId));
  // Once connected it looks for stranded media channels; let that pass before counting requests.
  await waitFor('the stranded-channel check ran', () => sweeps() > before);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return listener;
}

/** A run of the ARI configuration, as the call service creates it (no workflow: signals find none). */
const newRun = (fields: Partial<Run> = {}) =>
  services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'ari call',
    provider: 'ari',
    callType: 'outbound',
    state: 'running',
    telephonyConfigurationId: configurationId,
    ...fields,
  });

const sessionOf = (runId: number) => sessions.find((session) => session.runId === runId);
const bridgeMembers = (runId: number) => [...(asterisk.bridges.get(`sb-bridge-${runId}`) ?? [])].sort();
const logged = (msg: string) => logs.filter((line) => line.msg === msg);

/** The run's call channel and external media channel in one bridge, its media stream started. */
async function untilBridged(runId: number, callChannel: string): Promise<void> {
  await waitFor(
    'the call is bridged to the media endpoint',
    () => bridgeMembers(runId).join() === [callChannel, `sb-media-${runId}`].sort().join(),
  );
  await waitFor('the media stream started', () => sessionOf(runId)?.start !== null && sessionOf(runId) !== undefined);
}

/** The requests Asterisk received while `act` ran and the listener settled. */
async function requestsDuring(act: () => void | Promise<void>, settled: () => boolean): Promise<AriRequest[]> {
  const from = asterisk.requests.length;
  await act();
  await waitFor('the listener settled', settled);
  return asterisk.requestsSince(from);
}

describe('bridging ARI calls to the media endpoint', () => {
  beforeAll(async () => {
    await asterisk.listen();
    recordingsDir = await mkdtemp(join(tmpdir(), 'ari-recordings-'));
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
      onSession: (session) => {
        sessions.push(session);
        session.listen({
          onCallerAudio: (samples) => heard.set(session.runId, (heard.get(session.runId) ?? 0) + samples.length),
          onEnd: () => ended.add(session.runId),
        });
      },
    });
    // websocket_client.conf as docs/guides/asterisk.md tells the operator to write it.
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
    await startListener();
  }, 60_000);

  afterAll(async () => {
    for (const listener of listeners) await listener.stop();
    await media.close();
    await asterisk.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await rm(recordingsDir, { recursive: true, force: true });
  });

  let outbound: Run;

  it('bridges an answered outbound call: bridge, call channel, external media channel, then that channel', async () => {
    outbound = await newRun({ providerCallId: 'switchboard-outbound-1' });
    const requests = await requestsDuring(
      () => asterisk.enterStasis(stasisApp, 'switchboard-outbound-1', { args: [`run_id=${outbound.id}`] }),
      () => bridgeMembers(outbound.id).length === 2,
    );

    const bridge = `/ari/bridges/sb-bridge-${outbound.id}`;
    expect(requests).toEqual([
      // No `type`: Asterisk answers an existing id with 200 then, and creates a mixing bridge by default.
      { method: 'POST', path: bridge, query: {} },
      { method: 'POST', path: `${bridge}/addChannel`, query: { channel: 'switchboard-outbound-1' } },
      {
        method: 'POST',
        path: '/ari/channels/externalMedia',
        query: {
          channelId: `sb-media-${outbound.id}`,
          app: stasisApp,
          external_host: 'switchboard',
          transport: 'websocket',
          encapsulation: 'none',
          connection_type: 'client',
          format: 'ulaw',
          direction: 'both',
          transport_data: expect.stringMatching(new RegExp(`^v\\(run_id=${outbound.id},token=[^,()]+\\)$`)),
        },
      },
      { method: 'POST', path: `${bridge}/addChannel`, query: { channel: `sb-media-${outbound.id}` } },
    ]);
    const token = /token=([^)]+)\)$/.exec(requests[2]?.query.transport_data ?? '')?.[1] ?? '';
    expect(verifyMediaToken(mediaTokenKey(secrets), token, { provider: 'ari', runId: outbound.id })).toBe('valid');

    // The chan_websocket client reached the media endpoint with that URL and token: the stream is the run's.
    await untilBridged(outbound.id, 'switchboard-outbound-1');
    expect(sessionOf(outbound.id)?.start?.mediaFormat).toEqual({ encoding: 'ulaw', sampleRate: 8000, channels: 1 });
    asterisk.channels.get(`sb-media-${outbound.id}`)?.media?.sendCaller(tone(440, 8000, 0.2));
    await waitFor('caller audio is recorded', () => (heard.get(outbound.id) ?? 0) >= 1600);
  });

  it('creates nothing new for a repeated StasisStart, in this listener or in another replica', async () => {
    const mediaSocket = asterisk.channels.get(`sb-media-${outbound.id}`)?.media?.socket;
    await startListener();
    const requests = await requestsDuring(
      () => asterisk.enterStasis(stasisApp, 'switchboard-outbound-1', { args: [`run_id=${outbound.id}`] }),
      () => logged('ARI call bridged; external media channel dialing the media endpoint').length === 3,
    );

    // Each listener asks again; Asterisk reuses the bridge and refuses the second media channel (409).
    expect(requests.filter((r) => r.path === '/ari/channels/externalMedia')).toHaveLength(2);
    expect(logged('ARI call bridged; external media channel dialing the media endpoint').map((l) => l.outcome)).toEqual(
      ['created', 'existing', 'existing'],
    );
    expect([...asterisk.bridges.keys()]).toEqual([`sb-bridge-${outbound.id}`]);
    expect([...asterisk.channels.keys()].filter((id) => id.startsWith('sb-media-'))).toEqual([
      `sb-media-${outbound.id}`,
    ]);
    expect(bridgeMembers(outbound.id)).toEqual(['sb-media-' + outbound.id, 'switchboard-outbound-1'].sort());
    expect(asterisk.channels.get(`sb-media-${outbound.id}`)?.media?.socket).toBe(mediaSocket);
    expect(mediaSocket?.readyState).toBe(WebSocket.OPEN);
    expect(sessions.filter((session) => session.runId === outbound.id)).toHaveLength(1);
    await listeners.pop()?.stop();
  });

  it('tears the bridge and the external media channel down when the call hangs up', async () => {
    const requests = await requestsDuring(
      () => asterisk.hangUp('switchboard-outbound-1'),
      () => !asterisk.bridges.has(`sb-bridge-${outbound.id}`) && !asterisk.channels.has(`sb-media-${outbound.id}`),
    );

    expect(requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [`DELETE /ari/bridges/sb-bridge-${outbound.id}`, `DELETE /ari/channels/sb-media-${outbound.id}`].sort(),
    );
    // Hanging the media channel up closed its WebSocket, which ends the stream and its recording.
    await waitFor('the recording is kept', async () => {
      const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: outbound.id });
      return run.recordingUrl !== null;
    });
    expect(ended.has(outbound.id)).toBe(true);
  });

  it('logs a refused external media channel and goes on bridging the next call', async () => {
    const failing = await newRun({ providerCallId: 'switchboard-outbound-2' });
    // websocket_client.conf without the connection: Asterisk cannot allocate the channel.
    const uri = asterisk.websocketClients.get('switchboard') ?? '';
    asterisk.websocketClients.delete('switchboard');
    try {
      asterisk.enterStasis(stasisApp, 'switchboard-outbound-2', { args: [`run_id=${failing.id}`] });
      await waitFor(
        'the failure is logged',
        () => logged('ARI call could not be bridged to the media endpoint').length === 1,
      );
    } finally {
      asterisk.websocketClients.set('switchboard', uri);
    }
    expect(logged('ARI call could not be bridged to the media endpoint')[0]).toMatchObject({
      runId: failing.id,
      error: expect.stringContaining('Allocation failed'),
    });
    expect(bridgeMembers(failing.id)).toEqual(['switchboard-outbound-2']);

    // The listener lives on: the next call is bridged, and the failed one's bridge goes at its hang-up.
    const next = await newRun({ providerCallId: 'switchboard-outbound-3' });
    asterisk.enterStasis(stasisApp, 'switchboard-outbound-3', { args: [`run_id=${next.id}`] });
    await untilBridged(next.id, 'switchboard-outbound-3');
    asterisk.hangUp('switchboard-outbound-2');
    await waitFor('the failed call is torn down', () => !asterisk.bridges.has(`sb-bridge-${failing.id}`));
    asterisk.hangUp('switchboard-outbound-3');
    await waitFor('the next call is torn down', () => !asterisk.bridges.has(`sb-bridge-${next.id}`));
  });

  it('bridges an inbound call once the inbound handler has created its run', async () => {
    asterisk.enterStasis(stasisApp, 'inbound-1', { state: 'Ring', exten: '2001', caller: '+15559990000' });
    await waitFor('the inbound run exists', async () =>
      services.db.dataSource.getRepository(Run).existsBy({ providerCallId: 'inbound-1' }),
    );
    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ providerCallId: 'inbound-1' });
    await untilBridged(run.id, 'inbound-1');
    asterisk.hangUp('inbound-1');
    await waitFor('the inbound call is torn down', () => !asterisk.channels.has(`sb-media-${run.id}`));
  });

  it('warns when the media endpoint refuses the external media channel', async () => {
    // A run whose stream another API process holds: the endpoint answers 409 and Asterisk gives up (cause 3).
    const recorded = await newRun({ providerCallId: 'switchboard-outbound-4' });
    await services.db.dataSource.query('INSERT INTO media_stream_claims (run_id) VALUES ($1)', [recorded.id]);
    asterisk.enterStasis(stasisApp, 'switchboard-outbound-4', { args: [`run_id=${recorded.id}`] });
    await waitFor('the refusal is logged', () =>
      logged('ARI external media channel never connected to the media endpoint').some((l) => l.runId === recorded.id),
    );
    expect(bridgeMembers(recorded.id)).toEqual(['switchboard-outbound-4']);
    asterisk.hangUp('switchboard-outbound-4');
    await waitFor('the bridge is torn down', () => !asterisk.bridges.has(`sb-bridge-${recorded.id}`));
  });

  it('on reconnecting, tears down a media channel whose call ended while no listener ran', async () => {
    const run = await newRun({ providerCallId: 'switchboard-outbound-5' });
    asterisk.enterStasis(stasisApp, 'switchboard-outbound-5', { args: [`run_id=${run.id}`] });
    await untilBridged(run.id, 'switchboard-outbound-5');

    // Asterisk restarts its HTTP side (refusing for a while); the call ends unobserved.
    asterisk.refuseUpgrades = 1_000;
    asterisk.dropAll();
    asterisk.hangUp('switchboard-outbound-5');
    expect(asterisk.channels.has(`sb-media-${run.id}`)).toBe(true);
    asterisk.refuseUpgrades = 0;

    // The log line follows Asterisk's answer to the last DELETE, so wait for it rather than for the fake's state.
    await waitFor('the stranded bridge is torn down', () =>
      logged('ARI media bridge torn down').some((l) => l.runId === run.id && /unobserved/.test(String(l.reason))),
    );
    expect(asterisk.channels.has(`sb-media-${run.id}`)).toBe(false);
    expect(asterisk.bridges.has(`sb-bridge-${run.id}`)).toBe(false);
  });
});
