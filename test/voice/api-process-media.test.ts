import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Run } from '../../entities';
import { freePort } from '../../scripts/free-port';
import { Secrets } from '../../telephony/secrets';
import { pcm16ToMulaw } from '../../voice/codecs';
import { mediaStreamUrl, mediaTokenKey } from '../../voice/media-token';
import { parseWavHeader } from '../../voice/wav';
import { TEST_SESSION_SECRET } from '../helpers/app';
import { callingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testEnv } from '../helpers/test-env';
import { tone } from './audio-helpers';
import { connect, TwilioStreamClient } from './twilio-client';

const services = useTestServices();
let api: ChildProcess | undefined;
let recordingsDir: string;
let baseUrl: string;
const output: string[] = [];

/** The API as `npm run api` starts it: the media endpoint is wired in api/main.ts, not by the test. */
beforeAll(async () => {
  recordingsDir = await mkdtemp(join(tmpdir(), 'recordings-api-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  api = spawn(process.execPath, [require.resolve('tsx/cli'), 'api/main.ts'], {
    cwd: join(__dirname, '../..'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      DATABASE_URL: services.db.url,
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      SECRETS_KEY: TEST_SECRETS_KEY,
      SESSION_SECRET: TEST_SESSION_SECRET,
      RECORDINGS_DIR: recordingsDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [api.stdout, api.stderr]) stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const healthy = await fetch(`${baseUrl}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline || api.exitCode !== null) throw new Error(`API did not start:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 40_000);

afterAll(async () => {
  if (api && api.exitCode === null) {
    api.kill('SIGKILL');
    await once(api, 'exit');
  }
  await rm(recordingsDir, { recursive: true, force: true });
});

it('serves Twilio media in the API process, and SIGTERM closes open streams with their recordings', async () => {
  const org = await callingOrganization(services.server({ SECRETS_KEY: TEST_SECRETS_KEY }));
  const run = await services.db.dataSource.getRepository(Run).save({
    organizationId: org.owner.user.organization_id,
    agentId: org.agent.id,
    agentVersionId: org.agent.current_definition_id,
    name: 'media in the API process',
    provider: 'twilio',
    callType: 'inbound',
  });
  const key = mediaTokenKey(new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')));
  const url = mediaStreamUrl(baseUrl, key, { provider: 'twilio', runId: run.id });
  expect(await connect(url.replace(/[^/]+$/, 'forged'))).toEqual({ refused: 401 });

  const connection = await connect(url);
  if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
  const client = new TwilioStreamClient(connection.socket, run.id);
  client.begin();
  client.media(pcm16ToMulaw(tone(440, 8000, 0.5)));
  client.mark('flush'); // echoes nothing, but Twilio-style frames keep flowing until the server goes

  // Give the server the frames, then stop it with the stream still open.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = once(api as ChildProcess, 'exit');
  api?.kill('SIGTERM');
  expect(await client.closed).toBe(1001);
  const [code] = (await exited) as [number | null];
  expect(code).toBe(0);

  const stored = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id });
  expect(stored.recordingUrl).toBe(`/api/v1/workflow/${run.agentId}/runs/${run.id}/recording`);
  const header = parseWavHeader(await readFile(join(recordingsDir, `${run.id}.wav`)));
  expect(header).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 4000 * 4 });
});
