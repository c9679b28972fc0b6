import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { attachMediaServer, MAX_FRAME_BYTES, type MediaServer } from '../../api/media/media-server';
import { Run } from '../../entities';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { mulawToPcm16, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession } from '../../voice/media-session';
import { mediaStreamUrl, mediaTokenKey, signMediaToken } from '../../voice/media-token';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../voice/wav';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { recordingTracks, rms, tone } from './audio-helpers';
import { connect, TwilioStreamClient } from './twilio-client';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

let http: Server;
let baseUrl: string;
let recordingsDir: string;
let media: MediaServer;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
const sessions: MediaSession[] = [];

beforeAll(async () => {
  recordingsDir = await mkdtemp(join(tmpdir(), 'recordings-'));
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  ({ app } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY, RECORDINGS_DIR: recordingsDir },
  ));
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  // Wired as api/main.ts wires it: the same HTTP server carries the WebSocket upgrades.
  media = attachMediaServer(http, {
    dataSource: services.db.dataSource,
    secrets,
    recordings: new DiskRecordingStore(recordingsDir),
    logger: createLogger('silent', 'media-test'),
    onSession: (session) => sessions.push(session),
  });
  org = await callingOrganization(app.callback());
});

afterAll(async () => {
  await media.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await rm(recordingsDir, { recursive: true, force: true });
});

/** A Twilio run of the organization, as an answered inbound call leaves it. */
const twilioRun = () =>
  services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'media stream',
    provider: 'twilio',
    callType: 'inbound',
    state: 'running',
  });

const urlOf = (runId: number, provider = 'twilio') =>
  mediaStreamUrl(baseUrl, mediaTokenKey(secrets), { provider, runId });

const recording = (run: Run) =>
  request(app.callback())
    .get(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`)
    .set('X-API-Key', org.apiKey)
    .responseType('blob');

/** The run's recording URL, once the stream's end has stored the recording. */
const recordingUrlOf = (runId: number): Promise<string> =>
  waitFor(
    'the recording URL',
    async () => (await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId })).recordingUrl,
  );

async function open(runId: number): Promise<TwilioStreamClient> {
  const connection = await connect(urlOf(runId));
  if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
  return new TwilioStreamClient(connection.socket, runId);
}

describe('Twilio media stream endpoint', () => {
  it('records 2 s of caller audio (a 440 Hz tone) with a silent agent track, served to the organization', async () => {
    const run = await twilioRun();
    expect((await recording(run)).status).toBe(404);

    const caller = pcm16ToMulaw(tone(440, 8000, 2));
    const client = await open(run.id);
    client.begin();
    client.media(caller);
    client.stop();
    // Twilio closes after `stop`; the server closes too, normally.
    expect(await client.closed).toBe(1000);

    expect(await recordingUrlOf(run.id)).toBe(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`);
    const res = await recording(run);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    const wav = res.body as Buffer;
    expect(parseWavHeader(wav)).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 16000 * 4 });
    const expected = mulawToPcm16(caller);
    const { caller: left, agent: right } = recordingTracks(wav);
    expect(Buffer.from(left.buffer)).toEqual(Buffer.from(expected.buffer));
    expect(right.every((sample) => sample === 0)).toBe(true);

    // The run detail points at it; another organization does not get it.
    const detail = await request(app.callback())
      .get(`/api/v1/workflow/${run.agentId}/runs/${run.id}`)
      .set('X-API-Key', org.apiKey);
    expect(detail.body).toMatchObject({ recording_url: `/api/v1/workflow/${run.agentId}/runs/${run.id}/recording` });
    const other = await callingOrganization(app.callback());
    const foreign = await request(app.callback())
      .get(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`)
      .set('X-API-Key', other.apiKey);
    expect(foreign.status).toBe(404);

    // The run is over: no stream comes back for it.
    await services.db.dataSource.getRepository(Run).update({ id: run.id }, { isCompleted: true, state: 'completed' });
    expect(await connect(urlOf(run.id))).toEqual({ refused: 409 });
  });

  it('sends agent audio, marks and clear as Twilio frames, and records the agent track', async () => {
    const run = await twilioRun();
    const client = await open(run.id);
    client.begin();
    client.media(pcm16ToMulaw(new Int16Array(800)));
    await waitFor('the media stream to start', () => sessions.find((s) => s.runId === run.id && s.start !== null));
    const session = sessions.find((s) => s.runId === run.id) as MediaSession;
    expect(session.start).toMatchObject({ streamId: client.streamSid, providerCallId: client.callSid });
    const marks: string[] = [];
    session.listen({ onMark: (name) => marks.push(name) });

    const agent = tone(300, 8000, 0.1);
    session.play(agent);
    session.mark('utt-1');
    session.clear();
    await waitFor('three frames', () => client.received.length >= 3);
    expect(client.received).toEqual([
      { event: 'media', streamSid: client.streamSid, media: { payload: expect.any(String) } },
      { event: 'mark', streamSid: client.streamSid, mark: { name: 'utt-1' } },
      { event: 'clear', streamSid: client.streamSid },
    ]);
    const payload = (client.received[0] as { media: { payload: string } }).media.payload;
    expect(Buffer.from(payload, 'base64')).toEqual(Buffer.from(pcm16ToMulaw(agent)));
    client.mark('utt-1');
    await waitFor('a mark', () => marks.length > 0);
    expect(marks).toEqual(['utt-1']);

    // Agent audio sent after the clear is recorded from where the caller stream then is.
    session.play(agent);
    client.media(pcm16ToMulaw(new Int16Array(800)));
    client.stop();
    await client.closed;
    await recordingUrlOf(run.id);
    const wav = (await recording(run)).body as Buffer;
    const right = Array.from({ length: 1600 }, (_, i) => wav.readInt16LE(WAV_HEADER_BYTES + i * 4 + 2));
    expect(right.slice(0, 800).every((sample) => sample === 0)).toBe(true);
    expect(right.slice(800)).toEqual(Array.from(agent));
  });

  it('closes the recording when the socket drops without a stop frame', async () => {
    const run = await twilioRun();
    const client = await open(run.id);
    client.begin();
    client.media(pcm16ToMulaw(tone(440, 8000, 0.2)));
    client.socket.terminate();
    expect(await recordingUrlOf(run.id)).not.toBeNull();
    expect(parseWavHeader((await recording(run)).body as Buffer)?.dataBytes).toBe(1600 * 4);
  });

  it('closes a socket that sends an oversized frame (1009), and still keeps the recording', async () => {
    const run = await twilioRun();
    const client = await open(run.id);
    client.begin();
    const closed = new Promise<number>((resolve) => client.socket.once('close', (code: number) => resolve(code)));
    client.socket.send('x'.repeat(MAX_FRAME_BYTES + 1));
    expect(await closed).toBe(1009);
    for (let waited = 0; (await recordingUrlOf(run.id)) === null; waited += 20) {
      if (waited > 5000) throw new Error('the recording was not kept');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('refuses the upgrade: 401 for a bad, expired, missing or other-run token (path or query); 404 for an unserved provider', async () => {
    const run = await twilioRun();
    const other = await twilioRun();
    const path = `${baseUrl.replace(/^http/, 'ws')}/api/v1/telephony/twilio/media/${run.id}`;
    const key = mediaTokenKey(secrets);
    const expired = signMediaToken(key, { provider: 'twilio', runId: run.id }, Date.now() - 3600_000);
    const otherRun = signMediaToken(key, { provider: 'twilio', runId: other.id });
    expect(await connect(`${path}?token=not-a-token`)).toEqual({ refused: 401 });
    expect(await connect(`${path}/not-a-token`)).toEqual({ refused: 401 });
    expect(await connect(`${path}/${expired}`)).toEqual({ refused: 401 });
    expect(await connect(`${path}?token=${expired}`)).toEqual({ refused: 401 });
    expect(await connect(`${path}?token=${otherRun}`)).toEqual({ refused: 401 });
    expect(await connect(path)).toEqual({ refused: 401 });
    expect(await connect(urlOf(run.id, 'plivo'))).toEqual({ refused: 404 });
    expect(await connect(`${baseUrl.replace(/^http/, 'ws')}/api/v1/elsewhere`)).toEqual({ refused: 404 });
    // None of them opened a stream: the run still takes its one, with the token in the query too.
    const good = signMediaToken(key, { provider: 'twilio', runId: run.id });
    const connection = await connect(`${path}?token=${good}`);
    if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
    const client = new TwilioStreamClient(connection.socket, run.id);
    client.socket.close();
    await client.closed;
  });
});

describe('one media stream per run across API processes', () => {
  /** A second API process: its own HTTP server and media server, the same database. */
  let otherHttp: Server;
  let otherMedia: MediaServer;
  let otherBaseUrl: string;

  beforeAll(async () => {
    otherHttp = createServer();
    await new Promise<void>((resolve) => otherHttp.listen(0, '127.0.0.1', resolve));
    otherBaseUrl = `http://127.0.0.1:${(otherHttp.address() as AddressInfo).port}`;
    otherMedia = attachMediaServer(otherHttp, {
      dataSource: services.db.dataSource,
      secrets,
      recordings: new DiskRecordingStore(recordingsDir),
      logger: createLogger('silent', 'media-test-other'),
    });
  });

  afterAll(async () => {
    await otherMedia.close();
    await new Promise<void>((resolve) => otherHttp.close(() => resolve()));
  });

  const otherUrlOf = (runId: number) =>
    mediaStreamUrl(otherBaseUrl, mediaTokenKey(secrets), { provider: 'twilio', runId });
  const claimsOf = async (runId: number) =>
    Number(
      (
        await services.db.dataSource.query<{ count: string }[]>(
          'SELECT count(*) FROM media_stream_claims WHERE run_id = $1',
          [runId],
        )
      )[0]?.count,
    );

  it('refuses a second stream for a run on another process while the first is open', async () => {
    const run = await twilioRun();
    const client = await open(run.id);
    client.begin();
    expect(await claimsOf(run.id)).toBe(1);
    expect(await connect(otherUrlOf(run.id))).toEqual({ refused: 409 });
    client.stop();
    await client.closed;
  });

  it('takes the stream back on another process while the run goes on (after a transfer), carrying on the recording', async () => {
    const run = await twilioRun();
    const first = await open(run.id);
    first.begin();
    first.media(pcm16ToMulaw(tone(440, 8000, 0.5)));
    first.stop();
    await first.closed;
    await recordingUrlOf(run.id);
    await waitFor('the claim to be released', async () => (await claimsOf(run.id)) === 0);

    // The provider streams the caller back: the other process takes it and records after the first part.
    const connection = await connect(otherUrlOf(run.id));
    if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
    const back = new TwilioStreamClient(connection.socket, run.id);
    back.begin();
    expect(await connect(urlOf(run.id))).toEqual({ refused: 409 });
    back.media(pcm16ToMulaw(tone(880, 8000, 0.25)));
    back.stop();
    await back.closed;
    // Closed with its header fixed up: both parts' frames.
    const wav = await waitFor('the carried-on recording to be closed', async () => {
      const file = await readFile(join(recordingsDir, `${run.id}.wav`));
      return parseWavHeader(file)?.dataBytes === 0.75 * 8000 * 4 && file;
    });
    const { caller } = recordingTracks(wav);
    expect(rms(caller.subarray(0, 4000))).toBeGreaterThan(1000);
    expect(rms(caller.subarray(4000))).toBeGreaterThan(1000);

    // Once the run is over, no stream comes back.
    await services.db.dataSource.getRepository(Run).update({ id: run.id }, { isCompleted: true, state: 'completed' });
    expect(await connect(otherUrlOf(run.id))).toEqual({ refused: 409 });
  });

  it('admits exactly one of two streams opened at once on two processes', async () => {
    const run = await twilioRun();
    const outcomes = await Promise.all([connect(urlOf(run.id)), connect(otherUrlOf(run.id))]);
    const admitted = outcomes.filter((outcome) => 'socket' in outcome);
    expect(admitted).toHaveLength(1);
    expect(outcomes.filter((outcome) => !('socket' in outcome))).toEqual([{ refused: 409 }]);
    const [first] = admitted;
    if (first && 'socket' in first) {
      const client = new TwilioStreamClient(first.socket, run.id);
      client.begin();
      client.stop();
      await client.closed;
    }
    await recordingUrlOf(run.id);
  });
});
