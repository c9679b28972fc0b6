import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runDoctor, type Finding } from '../../domain/operations/doctor';
import { parseConfig } from '../../platform/config';
import { Secrets } from '../../telephony/secrets';
import { signUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const run = promisify(execFile);

/**
 * The outside services a deployment talks to, speaking their wire formats: Twilio's call lookup
 * (404 for an unknown call with good credentials, 401 otherwise), OpenAI's model list, Deepgram's
 * projects, ElevenLabs' account, and the deployment's own health route behind its public URL.
 */
let fake: Server;
let origin: string;
const GOOD = { twilio: 'AC_good:good-token', llm: 'Bearer good-llm', deepgram: 'Token good-dg', eleven: 'good-11' };

beforeAll(async () => {
  fake = createServer((req, res) => {
    const path = req.url ?? '';
    const auth = req.headers.authorization ?? '';
    const json = (status: number, body: object) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path.startsWith('/2010-04-01/Accounts/')) {
      const basic = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString();
      if (basic !== GOOD.twilio) return json(401, { code: 20003, message: 'Authenticate', status: 401 });
      return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    }
    if (path === '/v1/models') return auth === GOOD.llm ? json(200, { data: [] }) : json(401, { error: 'bad key' });
    if (path === '/v1/projects') return auth === GOOD.deepgram ? json(200, { projects: [] }) : json(401, {});
    if (path === '/v1/user') return req.headers['xi-api-key'] === GOOD.eleven ? json(200, {}) : json(401, {});
    if (path === '/api/v1/health') return json(200, { status: 'ok' });
    return json(404, {});
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;

  const app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
  const owner = await signUp(app);
  const good = await createTelephonyConfig(
    app,
    owner.token,
    { provider: 'twilio', account_sid: 'AC_good', auth_token: 'good-token' },
    'Twilio production',
  );
  await createPhoneNumber(app, owner.token, good.id, { address: '+14155550170' });
  await createTelephonyConfig(
    app,
    owner.token,
    { provider: 'twilio', account_sid: 'AC_good', auth_token: 'rotated-since' },
    'Twilio stale',
  );
  await createTelephonyConfig(
    app,
    owner.token,
    { provider: 'twilio', account_sid: 'AC_good', auth_token: 'good-token' },
    'Twilio without numbers',
  );
});
afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

/** The deployment's public name answers from the fake, as DNS would send it there. */
const PUBLIC = 'https://switchboard.example.com';
const throughFake: typeof fetch = (input, init) =>
  fetch(String(input instanceof Request ? input.url : input).replace(PUBLIC, origin), init);

const doctor = (env: Record<string, string>) =>
  runDoctor({
    config: parseConfig({
      NODE_ENV: 'test',
      SECRETS_KEY: TEST_SECRETS_KEY,
      TELEPHONY_API_BASE_URL: origin,
      LLM_BASE_URL: `${origin}/v1`,
      DEEPGRAM_BASE_URL: origin,
      ELEVENLABS_BASE_URL: origin.replace(/^http/, 'ws'),
      ...env,
    }),
    dataSource: services.db.dataSource,
    secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
    fetch: throughFake,
    timeoutMs: 5_000,
  });

const byCheck = (findings: Finding[], check: string) => findings.filter((finding) => finding.check.includes(check));

describe('npm run doctor', () => {
  it('passes a deployment whose keys, credentials, public URL and access are as intended', async () => {
    const findings = await doctor({
      PUBLIC_BASE_URL: PUBLIC,
      LLM_API_KEY: 'good-llm',
      DEEPGRAM_API_KEY: 'good-dg',
      ELEVENLABS_API_KEY: 'good-11',
      ENABLE_SIGNUP: 'false',
      OPERATOR_TOKEN: 'o'.repeat(40),
      TRUST_PROXY: '1',
    });
    const statuses = Object.fromEntries(findings.map((finding) => [finding.check, finding.status]));
    expect(statuses).toMatchObject({
      PUBLIC_BASE_URL: 'ok',
      LLM_API_KEY: 'ok',
      DEEPGRAM_API_KEY: 'ok',
      ELEVENLABS_API_KEY: 'ok',
      ENABLE_SIGNUP: 'ok',
      OPERATOR_TOKEN: 'ok',
    });
    expect(byCheck(findings, '"Twilio production"')).toEqual([
      expect.objectContaining({ status: 'ok', message: 'twilio accepted its credentials' }),
    ]);
    // Credentials replaced at the provider since they were stored.
    const [stale] = byCheck(findings, '"Twilio stale"');
    expect(stale).toMatchObject({ status: 'fail', message: expect.stringContaining('refused its credentials') });
    expect(stale?.fix).toMatch(/^Correct its credentials \(PUT \/organizations\/telephony-configs\/\d+\)/);
    expect(byCheck(findings, '"Twilio without numbers"')).toEqual([
      expect.objectContaining({ status: 'warn', message: expect.stringContaining('No active phone number') }),
    ]);
  });

  it('fails a local public URL and refused keys, and says what to do about open signup and operator access', async () => {
    const findings = await doctor({
      PUBLIC_BASE_URL: 'http://localhost:8000',
      LLM_API_KEY: 'expired',
      DEEPGRAM_API_KEY: 'expired',
    });
    const [url] = byCheck(findings, 'PUBLIC_BASE_URL');
    expect(url).toMatchObject({ status: 'fail', fix: expect.stringContaining('https') });
    expect(byCheck(findings, 'LLM_API_KEY')).toEqual([
      expect.objectContaining({ status: 'fail', message: expect.stringContaining('refused the key (401)') }),
    ]);
    expect(byCheck(findings, 'DEEPGRAM_API_KEY')[0]?.status).toBe('fail');
    expect(byCheck(findings, 'ENABLE_SIGNUP')[0]).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('ENABLE_SIGNUP=false'),
    });
    expect(byCheck(findings, 'OPERATOR_TOKEN')[0]?.status).toBe('warn');

    const plain = await doctor({ PUBLIC_BASE_URL: 'http://switchboard.example.com' });
    expect(byCheck(plain, 'PUBLIC_BASE_URL')[0]).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('not https'),
    });
    const unset = await doctor({ PUBLIC_BASE_URL: PUBLIC });
    expect(byCheck(unset, 'LLM_API_KEY')[0]).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('word for word'),
    });
  });

  it('exits non-zero with a finding to fix, printing what to do', async () => {
    const root = join(__dirname, '..', '..');
    const outcome = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', 'doctor.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        DATABASE_URL: services.db.url,
        SECRETS_KEY: TEST_SECRETS_KEY,
        TELEPHONY_API_BASE_URL: origin,
        LLM_BASE_URL: `${origin}/v1`,
        LLM_API_KEY: 'good-llm',
      },
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain('[FAIL] PUBLIC_BASE_URL: http://localhost:8000 is not reachable from a carrier');
    expect(outcome.stdout).toContain('→ Set PUBLIC_BASE_URL');
    expect(outcome.stdout).toContain('[ OK ] LLM_API_KEY');
    expect(outcome.stdout).toMatch(/\d+ to fix, \d+ to look at, \d+ fine\./);
  }, 150_000);
});
