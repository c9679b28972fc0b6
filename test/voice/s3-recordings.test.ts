import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { attachMediaServer, type MediaServer } from '../../api/media/media-server';
import { Run } from '../../entities';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { pcm16ToMulaw } from '../../voice/codecs';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { mediaStreamUrl, mediaTokenKey } from '../../voice/media-token';
import { createRecordingStore, type RecordingStore } from '../../voice/recording-store';
import { S3RecordingStore, s3ClientFor } from '../../voice/s3-recording-store';
import { parseWavHeader } from '../../voice/wav';
import { parseConfig } from '../../platform/config';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { startLocalS3, type LocalS3 } from '../helpers/s3-server';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';
import { tone } from './audio-helpers';
import { connect, TwilioStreamClient } from './twilio-client';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));
const BUCKET = 'switchboard-recordings';
const PREFIX = 'calls/recordings/';

let s3: LocalS3;
let http: Server;
let baseUrl: string;
let recordingsDir: string;
let media: MediaServer;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;

/**
 * The API configured for S3 as an operator would (path-style URLs to an S3-compatible endpoint, static
 * keys), over a local S3 that checks every request's SigV4 signature: the route reads through the
 * store `createRecordingStore` picks from that configuration, and the media server uploads through
 * the same kind of store, with short waits between upload attempts.
 */
beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET], region: 'eu-central-1' });
  recordingsDir = await mkdtemp(join(tmpdir(), 'recordings-s3-'));
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const built = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      PUBLIC_BASE_URL: baseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      RECORDINGS_DIR: recordingsDir,
      RECORDINGS_S3_BUCKET: BUCKET,
      RECORDINGS_S3_PREFIX: PREFIX,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
  );
  app = built.app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  const logger = createLogger('silent', 's3-recordings-test');
  expect(createRecordingStore(built.deps.config, logger)).toBeInstanceOf(S3RecordingStore);
  media = attachMediaServer(http, {
    dataSource: services.db.dataSource,
    secrets,
    recordings: new S3RecordingStore({
      disk: new DiskRecordingStore(recordingsDir),
      client: s3ClientFor(built.deps.config, logger),
      bucket: BUCKET,
      prefix: PREFIX,
      logger,
      retryDelaysMs: [20, 20],
    }),
    logger,
  });
  org = await callingOrganization(app.callback());
});

afterAll(async () => {
  await media.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await s3.close();
  await rm(recordingsDir, { recursive: true, force: true });
});

const twilioRun = () =>
  services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'recorded to S3',
    provider: 'twilio',
    callType: 'inbound',
    state: 'running',
  });

const recording = (run: Run, apiKey = org.apiKey) =>
  request(app.callback())
    .get(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`)
    .set('X-API-Key', apiKey)
    .responseType('blob');

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const s3Requests = (method: string, runId: number) =>
  s3.requests.filter((r) => r.method === method && r.key === `${PREFIX}${runId}.wav`);

/** A real Twilio media stream of `seconds` of a 440 Hz tone, ended with `stop`; resolves once recording_url is set. */
async function recordCall(run: Run, seconds: number): Promise<void> {
  const connection = await connect(
    mediaStreamUrl(baseUrl, mediaTokenKey(secrets), { provider: 'twilio', runId: run.id }),
  );
  if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
  const client = new TwilioStreamClient(connection.socket, run.id);
  client.begin();
  client.media(pcm16ToMulaw(tone(440, 8000, seconds)));
  client.stop();
  expect(await client.closed).toBe(1000);
  await waitFor(
    'recording_url to be set',
    async () => (await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id })).recordingUrl,
  );
}

describe('recordings in S3', () => {
  it('uploads the recording when the stream ends, removes the local copy, and streams it back byte-identical', async () => {
    const run = await twilioRun();
    await recordCall(run, 2);

    const object = s3.buckets.get(BUCKET)?.get(`${PREFIX}${run.id}.wav`);
    expect(object).toBeDefined();
    const stored = object?.body as Buffer;
    expect(parseWavHeader(stored)).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 16000 * 4 });
    expect(object?.contentType).toBe('audio/wav');
    const [put] = s3Requests('PUT', run.id);
    expect(put?.headers).toMatchObject({ 'content-length': String(stored.length), 'content-md5': expect.any(String) });
    // Encrypted at rest with S3-managed keys by default, and signed so the header cannot be stripped.
    expect(put?.headers['x-amz-server-side-encryption']).toBe('AES256');
    expect(put?.headers.authorization).toContain('x-amz-server-side-encryption');
    expect(object?.serverSideEncryption).toBe('AES256');
    expect(put?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=\w+\/\d{8}\/eu-central-1\/s3\/aws4_request/,
    );
    expect(await exists(join(recordingsDir, `${run.id}.wav`))).toBe(false);

    const whole = await recording(run);
    expect(whole.status).toBe(200);
    expect(whole.headers).toMatchObject({
      'content-type': 'audio/wav',
      'content-length': String(stored.length),
      'accept-ranges': 'bytes',
    });
    expect((whole.body as Buffer).equals(stored)).toBe(true);
    expect(s3Requests('GET', run.id)).toHaveLength(1);

    // A player seeking: one range, passed on to S3.
    const part = await recording(run).set('Range', 'bytes=44-4043');
    expect(part.status).toBe(206);
    expect(part.headers).toMatchObject({ 'content-range': `bytes 44-4043/${stored.length}`, 'content-length': '4000' });
    expect((part.body as Buffer).equals(stored.subarray(44, 4044))).toBe(true);
    expect(s3Requests('GET', run.id).at(-1)?.headers.range).toBe('bytes=44-4043');
    const tail = await recording(run).set('Range', 'bytes=-100');
    expect(tail.status).toBe(206);
    expect((tail.body as Buffer).equals(stored.subarray(stored.length - 100))).toBe(true);

    const past = await recording(run).set('Range', `bytes=${stored.length}-`);
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${stored.length}`);
    // Several ranges, or an If-Range we have no validator for: the whole file.
    const several = await recording(run).set('Range', 'bytes=0-9,100-109');
    expect(several.status).toBe(200);
    expect((several.body as Buffer).equals(stored)).toBe(true);
    expect((await recording(run).set('Range', 'bytes=0-9').set('If-Range', '"abc"')).status).toBe(200);

    // Still the run's organization only.
    const other = await callingOrganization(app.callback());
    const foreign = await recording(run, other.apiKey);
    expect(foreign.status).toBe(404);
  });

  it('tries the upload again after a transient failure', async () => {
    const run = await twilioRun();
    s3.failNext('PUT', 1, { status: 503, code: 'SlowDown' });
    await recordCall(run, 0.5);
    expect(s3Requests('PUT', run.id).map((r) => r.status)).toEqual([503, 200]);
    expect(await exists(join(recordingsDir, `${run.id}.wav`))).toBe(false);
    const res = await recording(run);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).equals(s3.buckets.get(BUCKET)?.get(`${PREFIX}${run.id}.wav`)?.body as Buffer)).toBe(
      true,
    );
  });

  it('keeps the recording on local disk when every upload attempt fails, and serves it from there', async () => {
    const run = await twilioRun();
    s3.failNext('PUT', 3);
    await recordCall(run, 1);
    expect(s3Requests('PUT', run.id).map((r) => r.status)).toEqual([500, 500, 500]);
    expect(s3.buckets.get(BUCKET)?.has(`${PREFIX}${run.id}.wav`)).toBe(false);

    const local = await readFile(join(recordingsDir, `${run.id}.wav`));
    expect(parseWavHeader(local)?.dataBytes).toBe(8000 * 4);
    const res = await recording(run);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).equals(local)).toBe(true);
    const part = await recording(run).set('Range', 'bytes=0-43');
    expect(part.status).toBe(206);
    expect((part.body as Buffer).equals(local.subarray(0, 44))).toBe(true);
    // Served from disk: S3 was not asked.
    expect(s3Requests('HEAD', run.id)).toHaveLength(0);
    expect(s3Requests('GET', run.id)).toHaveLength(0);
  });

  it('answers 404 when the recording is in neither place, and 503 when S3 fails', async () => {
    const run = await twilioRun();
    expect((await recording(run)).status).toBe(404);
    // recording_url set, but nothing on disk and no object (removed by hand, say).
    await services.db.dataSource
      .getRepository(Run)
      .update({ id: run.id }, { recordingUrl: `/api/v1/workflow/${run.agentId}/runs/${run.id}/recording` });
    const missing = await recording(run);
    expect(missing.status).toBe(404);
    expect(JSON.parse((missing.body as Buffer).toString())).toEqual({ detail: 'Recording not found' });
    expect(s3Requests('HEAD', run.id).map((r) => r.status)).toEqual([404]);

    // The SDK retries a 500 three times in all before the route gives up.
    s3.failNext('HEAD', 3);
    const failing = await recording(run);
    expect(failing.status).toBe(503);
    expect(JSON.parse((failing.body as Buffer).toString())).toEqual({ detail: 'Recording storage is unavailable' });
    expect(s3Requests('HEAD', run.id).map((r) => r.status)).toEqual([404, 500, 500, 500]);
  });
});

describe('server-side encryption of recordings in S3', () => {
  const s3Config = (env: Record<string, string>) =>
    parseConfig({
      NODE_ENV: 'test',
      RECORDINGS_DIR: recordingsDir,
      RECORDINGS_S3_BUCKET: BUCKET,
      RECORDINGS_S3_PREFIX: PREFIX,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      ...env,
    });
  const logger = createLogger('silent', 's3-encryption-test');
  let runIds = 9_000_000;

  /** A finished recording on local disk, kept through `store`; answers its run id. */
  const keepOne = async (store: RecordingStore): Promise<number> => {
    runIds += 1;
    await writeFile(store.localPath(runIds), Buffer.alloc(4044, 1));
    await store.keep(runIds);
    return runIds;
  };

  it('asks for a KMS key when configured so, and S3 keeps the object under it', async () => {
    const keyId = 'arn:aws:kms:eu-central-1:111122223333:key/0a1b2c3d-4e5f-6789-abcd-ef0123456789';
    const store = createRecordingStore(
      s3Config({ RECORDINGS_S3_SSE: 'aws:kms', RECORDINGS_S3_KMS_KEY_ID: keyId }),
      logger,
    );
    const runId = await keepOne(store);
    const [put] = s3Requests('PUT', runId);
    expect(put?.headers).toMatchObject({
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-aws-kms-key-id': keyId,
    });
    expect(s3.buckets.get(BUCKET)?.get(`${PREFIX}${runId}.wav`)).toMatchObject({
      serverSideEncryption: 'aws:kms',
      kmsKeyId: keyId,
    });
    expect(await exists(store.localPath(runId))).toBe(false);
  });

  it('sends no encryption header with RECORDINGS_S3_SSE=none, and refuses a KMS key without aws:kms', async () => {
    const runId = await keepOne(createRecordingStore(s3Config({ RECORDINGS_S3_SSE: 'none' }), logger));
    expect(s3Requests('PUT', runId)[0]?.headers['x-amz-server-side-encryption']).toBeUndefined();
    expect(() => s3Config({ RECORDINGS_S3_KMS_KEY_ID: 'alias/recordings' })).toThrow(/RECORDINGS_S3_KMS_KEY_ID/);
  });

  it('keeps a recording on disk, and none in the bucket, when the server does not confirm the encryption', async () => {
    const careless = await startLocalS3({ buckets: [BUCKET], region: s3.region, ignoresEncryption: true });
    try {
      const config = parseConfig({
        NODE_ENV: 'test',
        S3_ENDPOINT: careless.endpoint,
        S3_REGION: careless.region,
        S3_ACCESS_KEY_ID: careless.accessKeyId,
        S3_SECRET_ACCESS_KEY: careless.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      });
      const store = new S3RecordingStore({
        disk: new DiskRecordingStore(recordingsDir),
        client: s3ClientFor(config, logger),
        bucket: BUCKET,
        prefix: PREFIX,
        logger,
        retryDelaysMs: [],
      });
      const runId = await keepOne(store);
      const key = `${PREFIX}${runId}.wav`;
      expect(careless.requests.filter((r) => r.key === key).map((r) => `${r.method} ${r.status}`)).toEqual([
        'PUT 200',
        'DELETE 204',
      ]);
      expect(careless.buckets.get(BUCKET)?.has(key)).toBe(false);
      expect(await exists(store.localPath(runId))).toBe(true);
    } finally {
      await careless.close();
    }
  });
});
