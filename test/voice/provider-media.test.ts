import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type WebSocket from 'ws';
import { attachMediaServer, type MediaServer } from '../../api/media/media-server';
import { Run } from '../../entities';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { alawToPcm16, mulawToPcm16, pcm16ToAlaw, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession } from '../../voice/media-session';
import { mediaStreamUrl, mediaTokenKey, signMediaToken } from '../../voice/media-token';
import { Downsampler16kTo8k, Upsampler8kTo16k } from '../../voice/resample';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../voice/wav';
import { answerUrls } from '../../telephony/inbound';
import type { AnswerTarget, ProviderReply } from '../../telephony/provider';
import { cloudonixAnswering } from '../../telephony/providers/cloudonix/inbound';
import { plivoCompatibleAnswering } from '../../telephony/providers/plivo-compatible/markup';
import { vonageAnswering } from '../../telephony/providers/vonage/inbound';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { tone } from './audio-helpers';
import {
  AriClient,
  CloudonixClient,
  PlivoClient,
  TelnyxClient,
  VonageClient,
  type MediaClient,
} from './provider-media-clients';
import { connect } from './twilio-client';

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

const runOf = (provider: string) =>
  services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'media stream',
    provider,
    callType: 'inbound',
    state: 'running',
  });

/** The URL the answer markup hands the provider (`mediaStreamUrl`: token in the query for all of these). */
const markupUrl = (provider: string) => (runId: number) =>
  mediaStreamUrl(baseUrl, mediaTokenKey(secrets), { provider, runId });

/** Asterisk's form: websocket_client.conf's fixed URI plus the `v(run_id=…,token=…)` query. */
const ariUrl = (runId: number) =>
  `${baseUrl.replace(/^http/, 'ws')}/api/v1/telephony/ari/media?run_id=${runId}&token=${signMediaToken(
    mediaTokenKey(secrets),
    { provider: 'ari', runId },
  )}`;

const mulawTrip = (samples: Int16Array) => mulawToPcm16(pcm16ToMulaw(samples));
const alawTrip = (samples: Int16Array) => alawToPcm16(pcm16ToAlaw(samples));
const up = (samples: Int16Array) => new Upsampler8kTo16k().process(samples);
const down = (samples: Int16Array) => new Downsampler16kTo8k().process(samples);

interface Case {
  name: string;
  provider: string;
  url: (runId: number) => string;
  client: (socket: WebSocket, runId: number) => MediaClient;
  /** What the recording's caller track holds for caller audio at the client's rate. */
  heard: (caller: Int16Array) => Int16Array;
  /** What the client decodes from agent audio played as PCM16 at 8 kHz. */
  sent: (agent: Int16Array) => Int16Array;
  /** The text frames a mark named `utt-1` and a clear produce, in order (besides audio). */
  controls: (client: MediaClient) => unknown[];
  /** The close code the client sees after its `stop`. */
  closeCode: number;
}

const cases: Case[] = [
  {
    name: 'plivo',
    provider: 'plivo',
    url: markupUrl('plivo'),
    client: (socket, runId) => new PlivoClient(socket, runId),
    heard: mulawTrip,
    sent: mulawTrip,
    controls: (client) => {
      const { streamId } = client as PlivoClient;
      return [
        { event: 'checkpoint', streamId, name: 'utt-1' },
        { event: 'clearAudio', streamId },
      ];
    },
    closeCode: 1000,
  },
  {
    name: 'vobiz (no stop frame: the socket closes)',
    provider: 'vobiz',
    url: markupUrl('vobiz'),
    client: (socket, runId) => new PlivoClient(socket, runId, true),
    heard: mulawTrip,
    sent: mulawTrip,
    controls: (client) => {
      const { streamId } = client as PlivoClient;
      return [
        { event: 'checkpoint', streamId, name: 'utt-1' },
        { event: 'clearAudio', streamId },
      ];
    },
    closeCode: 1000,
  },
  {
    name: 'telnyx PCMU (media frames out of order)',
    provider: 'telnyx',
    url: markupUrl('telnyx'),
    client: (socket) => new TelnyxClient(socket),
    heard: mulawTrip,
    sent: mulawTrip,
    controls: () => [{ event: 'mark', mark: { name: 'utt-1' } }, { event: 'clear' }],
    closeCode: 1000,
  },
  {
    name: 'telnyx PCMA',
    provider: 'telnyx',
    url: markupUrl('telnyx'),
    client: (socket) => new TelnyxClient(socket, 'PCMA'),
    heard: alawTrip,
    sent: alawTrip,
    controls: () => [{ event: 'mark', mark: { name: 'utt-1' } }, { event: 'clear' }],
    closeCode: 1000,
  },
  {
    name: 'vonage (16 kHz L16)',
    provider: 'vonage',
    url: markupUrl('vonage'),
    client: (socket, runId) => new VonageClient(socket, runId),
    heard: down,
    sent: up,
    controls: () => [{ action: 'notify', payload: { name: 'utt-1' } }, { action: 'clear' }],
    closeCode: 1000,
  },
  {
    name: 'vonage (first frame without event, as older docs show)',
    provider: 'vonage',
    url: markupUrl('vonage'),
    client: (socket, runId) => new VonageClient(socket, runId, false),
    heard: down,
    sent: up,
    controls: () => [{ action: 'notify', payload: { name: 'utt-1' } }, { action: 'clear' }],
    closeCode: 1000,
  },
  {
    name: 'cloudonix (Twilio Media Streams frames)',
    provider: 'cloudonix',
    url: markupUrl('cloudonix'),
    client: (socket) => new CloudonixClient(socket),
    heard: mulawTrip,
    sent: mulawTrip,
    controls: (client) => {
      const { streamSid } = client as CloudonixClient;
      return [
        { event: 'mark', streamSid, mark: { name: 'utt-1' } },
        { event: 'clear', streamSid },
      ];
    },
    closeCode: 1000,
  },
  {
    name: 'ari (plain-text control, ulaw)',
    provider: 'ari',
    url: ariUrl,
    client: (socket) => new AriClient(socket, 'plain-text', 'ulaw'),
    heard: mulawTrip,
    sent: mulawTrip,
    controls: () => ['MARK_MEDIA correlation_id:utt-1', 'FLUSH_MEDIA'],
    closeCode: 1000,
  },
  {
    name: 'ari (JSON control, slin16)',
    provider: 'ari',
    url: markupUrl('ari'),
    client: (socket) => new AriClient(socket, 'json', 'slin16'),
    heard: down,
    sent: up,
    controls: () => [{ command: 'MARK_MEDIA', correlation_id: 'utt-1' }, { command: 'FLUSH_MEDIA' }],
    closeCode: 1000,
  },
];

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

/** Text frames other than agent audio (Plivo `playAudio`, Telnyx/Cloudonix `media`). */
const controlFrames = (client: MediaClient) =>
  client.text.filter((frame) => {
    const event = (frame as { event?: unknown } | null)?.event;
    return event !== 'playAudio' && event !== 'media';
  });

describe.each(cases)('$name media stream endpoint', (c) => {
  it('streams 2 s of caller audio into the recording, sends agent audio, marks and clear in its format, hears DTMF', async () => {
    const run = await runOf(c.provider);
    const connection = await connect(c.url(run.id));
    if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
    const client = c.client(connection.socket, run.id);
    client.begin();
    await waitFor('the media stream to start', () => sessions.find((s) => s.runId === run.id)?.start);
    const session = sessions.find((s) => s.runId === run.id) as MediaSession;
    const marks: string[] = [];
    const digits: string[] = [];
    session.listen({ onMark: (name) => marks.push(name), onDtmf: (digit) => digits.push(digit) });

    const caller = tone(440, client.rate, 2);
    client.sendCaller(caller);
    // 100 ms: a whole number of 20 ms frames at 8 and 16 kHz.
    const agent = tone(300, 8000, 0.1);
    const expectedAgent = c.sent(agent);
    session.play(agent);
    session.mark('utt-1');
    session.clear();
    const expectedControls = c.controls(client);
    await waitFor(
      'the agent audio and control frames',
      () =>
        client.agentAudio().length >= expectedAgent.length && controlFrames(client).length >= expectedControls.length,
    );
    expect(Array.from(client.agentAudio())).toEqual(Array.from(expectedAgent));
    expect(controlFrames(client)).toEqual(expectedControls);
    // Binary protocols frame agent audio as the provider requires (Vonage: exactly 20 ms).
    if (c.provider === 'vonage') expect(client.binary.every((frame) => frame.length === 640)).toBe(true);

    client.markPlayed('utt-1');
    client.dtmf('5');
    await waitFor('a mark and a digit', () => marks.length > 0 && digits.length > 0);
    expect(marks).toEqual(['utt-1']);
    expect(digits).toEqual(['5']);

    client.stop();
    expect(await client.closed).toBe(c.closeCode);
    expect(await recordingUrlOf(run.id)).toBe(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`);
    const wav = (await recording(run)).body as Buffer;
    expect(parseWavHeader(wav)).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 16000 * 4 });
    const left = Array.from({ length: 16000 }, (_, i) => wav.readInt16LE(WAV_HEADER_BYTES + i * 4));
    expect(left).toEqual(Array.from(c.heard(caller)));
  });

  it('refuses a bad, expired or other-run token with 401', async () => {
    const run = await runOf(c.provider);
    const other = await runOf(c.provider);
    const key = mediaTokenKey(secrets);
    const path = `${baseUrl.replace(/^http/, 'ws')}/api/v1/telephony/${c.provider}/media/${run.id}`;
    const expired = signMediaToken(key, { provider: c.provider, runId: run.id }, Date.now() - 3600_000);
    const otherRun = signMediaToken(key, { provider: c.provider, runId: other.id });
    const otherProvider = signMediaToken(key, { provider: 'twilio', runId: run.id });
    expect(await connect(`${path}?token=not-a-token`)).toEqual({ refused: 401 });
    expect(await connect(`${path}?token=${expired}`)).toEqual({ refused: 401 });
    expect(await connect(`${path}?token=${otherRun}`)).toEqual({ refused: 401 });
    expect(await connect(`${path}?token=${otherProvider}`)).toEqual({ refused: 401 });
    expect(await connect(path)).toEqual({ refused: 401 });
    expect(
      await connect(
        `${baseUrl.replace(/^http/, 'ws')}/api/v1/telephony/${c.provider}/media?run_id=${run.id}&token=${expired}`,
      ),
    ).toEqual({
      refused: 401,
    });
  });
});

describe('media formats the answer markup did not ask for', () => {
  const refusals: { provider: string; url: (runId: number) => string; first: string }[] = [
    {
      provider: 'plivo',
      url: markupUrl('plivo'),
      first: JSON.stringify({
        event: 'start',
        sequenceNumber: 1,
        start: { callId: 'c', streamId: 's', mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000 } },
      }),
    },
    {
      provider: 'vonage',
      url: markupUrl('vonage'),
      first: JSON.stringify({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=24000' }),
    },
    { provider: 'ari', url: ariUrl, first: 'MEDIA_START connection_id:c channel:WebSocket/c/0x1 format:g722' },
  ];

  it.each(refusals)(
    '$provider: closes the socket with 1003 and still closes the recording',
    async ({ provider, url, first }) => {
      const run = await runOf(provider);
      const connection = await connect(url(run.id));
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      const closed = new Promise<number>((resolve) => connection.socket.once('close', (code) => resolve(code)));
      connection.socket.send(first);
      expect(await closed).toBe(1003);
      expect(await recordingUrlOf(run.id)).not.toBeNull();
    },
  );
});

describe('Vonage agent audio framing', () => {
  it('sends only whole 640-byte frames; a mark pads the partial one with silence before its notify', async () => {
    const run = await runOf('vonage');
    const connection = await connect(markupUrl('vonage')(run.id));
    if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
    const client = new VonageClient(connection.socket, run.id);
    client.begin();
    await waitFor('the media stream to start', () => sessions.find((s) => s.runId === run.id)?.start);
    const session = sessions.find((s) => s.runId === run.id) as MediaSession;
    // 30 ms at 8 kHz: 480 samples at 16 kHz, one and a half frames.
    const agent = tone(300, 8000, 0.03);
    session.play(agent);
    await waitFor('agent audio', () => client.binary.length >= 1);
    session.mark('end-of-turn');
    await waitFor('the mark frame', () => client.text.length >= 1);
    expect(client.binary.map((frame) => frame.length)).toEqual([640, 640]);
    const expected = up(agent);
    const received = client.agentAudio();
    expect(Array.from(received.subarray(0, 480))).toEqual(Array.from(expected));
    expect(received.subarray(480).every((sample) => sample === 0)).toBe(true);
    expect(client.text).toEqual([{ action: 'notify', payload: { name: 'end-of-turn' } }]);
    client.stop();
    await client.closed;
  });
});

describe('the URL in each answer markup', () => {
  const unescapeXml = (text: string) =>
    text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  /** Where each provider reads the media URL from its answer (provider-wire-formats §2.5, §3, §5.5, §6.4). */
  const markups: {
    provider: string;
    answer: (target: AnswerTarget) => Promise<ProviderReply>;
    url: (body: string) => string;
  }[] = [
    {
      provider: 'plivo',
      answer: plivoCompatibleAnswering.answerCall,
      url: (body) => /<Stream[^>]*>([^<]+)<\/Stream>/.exec(body)?.[1] ?? '',
    },
    {
      provider: 'vobiz',
      answer: plivoCompatibleAnswering.answerCall,
      url: (body) => /<Stream[^>]*>([^<]+)<\/Stream>/.exec(body)?.[1] ?? '',
    },
    {
      provider: 'cloudonix',
      answer: cloudonixAnswering.answerCall,
      url: (body) => /<Stream url="([^"]+)"/.exec(body)?.[1] ?? '',
    },
    {
      provider: 'vonage',
      answer: vonageAnswering.answerCall,
      url: (body) => (JSON.parse(body) as [{ endpoint: [{ uri: string }] }])[0].endpoint[0].uri,
    },
  ];

  it.each(markups)(
    '$provider: the endpoint accepts the URL the markup gives the provider',
    async ({ provider, answer, url }) => {
      const run = await runOf(provider);
      const target = { runId: run.id, providerCallId: 'call-1', ...answerUrls(baseUrl, provider, run.id, secrets) };
      const streamUrl = unescapeXml(url((await answer(target)).body));
      expect(streamUrl).toMatch(new RegExp(`/api/v1/telephony/${provider}/media/${run.id}\\?token=`));
      const connection = await connect(streamUrl);
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      connection.socket.close();
      expect(await recordingUrlOf(run.id)).not.toBeNull();
    },
  );
});
