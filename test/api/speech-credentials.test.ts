import request from 'supertest';
import { Secrets } from '../../telephony/secrets';
import { createApiKey, signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const BASE = '/api/v1/organizations/speech-credentials';
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));
const DEEPGRAM_KEY = '0123456789abcdef0123456789abcdef01234567';

/** The row as PostgreSQL holds it, and the key it decrypts to. */
const stored = async (organizationId: number, provider: string) => {
  const [row] = await services.db.dataSource.query<{ encrypted_api_key: string; created_at: Date; updated_at: Date }[]>(
    'SELECT encrypted_api_key, created_at, updated_at FROM speech_credentials WHERE organization_id = $1 AND provider = $2',
    [organizationId, provider],
  );
  return row && { ...row, key: secrets.open(row.encrypted_api_key) };
};

let app: TestServer;
let owner: SignedUp;
beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
  owner = await signUp(app);
});
const as = (method: 'get' | 'put' | 'delete', path: string, caller: SignedUp = owner) =>
  request(app)[method](path).auth(caller.token, { type: 'bearer' });

describe('store, read, replace', () => {
  it('stores a key encrypted and answers it masked', async () => {
    const res = await as('put', `${BASE}/deepgram`).send({ api_key: `  ${DEEPGRAM_KEY}\n` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      provider: 'deepgram',
      api_key: `${'*'.repeat(36)}4567`,
      created_at: expect.stringMatching(/^\d{4}-/),
      updated_at: expect.stringMatching(/^\d{4}-/),
    });

    const row = await stored(owner.user.organization_id, 'deepgram');
    expect(row?.encrypted_api_key).toMatch(/^v1\./);
    expect(row?.encrypted_api_key).not.toContain(DEEPGRAM_KEY);
    expect(row?.encrypted_api_key).not.toContain(DEEPGRAM_KEY.slice(-8));
    // Trimmed before it is sealed.
    expect(row?.key).toBe(DEEPGRAM_KEY);

    expect((await as('get', `${BASE}/deepgram`)).body).toEqual(res.body);
  });

  it('lists every stored key, masked, by provider', async () => {
    const org = await signUp(app);
    for (const [provider, key] of [
      ['openai', 'sk-proj-openai-key-0001'],
      ['cartesia', 'sk_car_cartesia_0002'],
      ['elevenlabs', 'abcd'],
    ]) {
      expect((await as('put', `${BASE}/${provider}`, org).send({ api_key: key })).status).toBe(201);
    }
    const res = await as('get', BASE, org);
    expect(res.status).toBe(200);
    const listed = res.body.speech_credentials as Record<string, string>[];
    expect(listed.map(({ provider, api_key }) => [provider, api_key])).toEqual([
      ['cartesia', `${'*'.repeat(16)}0002`],
      // Four characters or fewer are masked whole.
      ['elevenlabs', '****'],
      ['openai', `${'*'.repeat(19)}0001`],
    ]);
  });

  it('replaces a key (200), keeping created_at', async () => {
    const org = await signUp(app);
    const first = await as('put', `${BASE}/cartesia`, org).send({ api_key: 'first-key-1111' });
    const second = await as('put', `${BASE}/cartesia`, org).send({ api_key: 'second-key-2222' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ api_key: `${'*'.repeat(11)}2222`, created_at: first.body.created_at });
    expect(Date.parse(second.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
    expect((await stored(org.user.organization_id, 'cartesia'))?.key).toBe('second-key-2222');
  });

  it('keeps the stored key, untouched, when its mask is sent back', async () => {
    const org = await signUp(app);
    await as('put', `${BASE}/elevenlabs`, org).send({ api_key: 'sk_elevenlabs_secret_9876' });
    const before = await stored(org.user.organization_id, 'elevenlabs');
    const read = await as('get', `${BASE}/elevenlabs`, org);

    const res = await as('put', `${BASE}/elevenlabs`, org).send({ api_key: read.body.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(read.body);
    expect(await stored(org.user.organization_id, 'elevenlabs')).toEqual(before);
  });

  it('accepts an API key as well as a session token', async () => {
    const org = await signUp(app);
    const { api_key } = await createApiKey(app, org.token);
    const put = await request(app).put(`${BASE}/openai`).set('X-API-Key', api_key).send({ api_key: 'sk-by-api-key' });
    expect(put.status).toBe(201);
    const list = await request(app).get(BASE).set('X-API-Key', api_key);
    expect(list.body.speech_credentials).toEqual([put.body]);
  });
});

describe('bad input', () => {
  it("refuses another key's mask, and a mask when nothing is stored, storing nothing", async () => {
    const org = await signUp(app);
    const noKey = await as('put', `${BASE}/deepgram`, org).send({ api_key: `${'*'.repeat(36)}4567` });
    expect(noKey.status).toBe(422);
    expect(noKey.body.detail).toEqual([
      {
        loc: ['body', 'api_key'],
        msg: 'This looks like a masked key and no key is stored for this provider; send the full key.',
        type: 'value_error',
      },
    ]);
    expect(await stored(org.user.organization_id, 'deepgram')).toBeUndefined();

    await as('put', `${BASE}/deepgram`, org).send({ api_key: DEEPGRAM_KEY });
    const otherMask = await as('put', `${BASE}/deepgram`, org).send({ api_key: `${'*'.repeat(36)}9999` });
    expect(otherMask.status).toBe(422);
    expect(otherMask.body.detail[0]).toMatchObject({ loc: ['body', 'api_key'], type: 'value_error' });
    expect((await stored(org.user.organization_id, 'deepgram'))?.key).toBe(DEEPGRAM_KEY);
  });

  it.each([
    ['an empty key', { api_key: '   ' }, 'too_short'],
    ['a key with a space', { api_key: 'two words' }, 'string_pattern_mismatch'],
    ['a key with a line break inside', { api_key: 'line\nbreak' }, 'string_pattern_mismatch'],
    // Its `type` is not checked: api/validation.ts reads zod 4 issues without `input`, so every wrong type says `missing`.
    ['a key that is not a string', { api_key: 12345 }, expect.any(String)],
    ['no key', {}, 'missing'],
    ['a key over 1024 characters', { api_key: 'k'.repeat(1025) }, 'too_long'],
  ])('answers 422 for %s', async (_label, body, type) => {
    const res = await as('put', `${BASE}/openai`).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'api_key'], msg: expect.any(String), type }]);
    expect(await stored(owner.user.organization_id, 'openai')).toBeUndefined();
  });

  it.each(['get', 'put', 'delete'] as const)('answers 422 to %s on an unknown provider', async (method) => {
    const res = await as(method, `${BASE}/polly`).send({ api_key: 'some-key' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['path', 'provider'], msg: expect.stringContaining('"deepgram"'), type: 'enum' },
    ]);
  });

  it('answers 404 for a known provider without a stored key', async () => {
    const org = await signUp(app);
    for (const method of ['get', 'delete'] as const) {
      const res = await as(method, `${BASE}/cartesia`, org);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'No API key is stored for this speech provider' });
    }
  });

  it('answers 401 without credentials', async () => {
    expect((await request(app).get(BASE)).status).toBe(401);
    expect((await request(app).put(`${BASE}/deepgram`).send({ api_key: 'k' })).status).toBe(401);
  });
});

describe('delete', () => {
  it("deletes the organization's key for one provider only", async () => {
    const org = await signUp(app);
    await as('put', `${BASE}/deepgram`, org).send({ api_key: 'deepgram-key' });
    await as('put', `${BASE}/openai`, org).send({ api_key: 'openai-key' });
    const res = await as('delete', `${BASE}/deepgram`, org);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Speech provider API key deleted' });
    expect((await as('get', `${BASE}/deepgram`, org)).status).toBe(404);
    const listed = (await as('get', BASE, org)).body.speech_credentials as { provider: string }[];
    expect(listed.map((credential) => credential.provider)).toEqual(['openai']);
    expect((await as('delete', `${BASE}/deepgram`, org)).status).toBe(404);
  });
});

describe('another organization', () => {
  it("neither sees, replaces, adopts nor deletes the organization's key", async () => {
    const a = await signUp(app);
    const b = await signUp(app);
    const put = await as('put', `${BASE}/deepgram`, a).send({ api_key: DEEPGRAM_KEY });
    const before = await stored(a.user.organization_id, 'deepgram');

    expect((await as('get', BASE, b)).body).toEqual({ speech_credentials: [] });
    expect((await as('get', `${BASE}/deepgram`, b)).status).toBe(404);
    expect((await as('delete', `${BASE}/deepgram`, b)).status).toBe(404);
    // A's mask means nothing to B: it is not B's stored key.
    expect((await as('put', `${BASE}/deepgram`, b).send({ api_key: put.body.api_key })).status).toBe(422);
    // B's own key is B's alone.
    expect((await as('put', `${BASE}/deepgram`, b).send({ api_key: 'b-own-key-0000' })).status).toBe(201);

    expect(await stored(a.user.organization_id, 'deepgram')).toEqual(before);
    expect((await stored(b.user.organization_id, 'deepgram'))?.key).toBe('b-own-key-0000');
    expect((await as('get', `${BASE}/deepgram`, a)).body).toEqual(put.body);
  });
});

describe('the table', () => {
  it('admits only the four keyed providers, one row per organization and provider', async () => {
    const insert = (provider: string) =>
      services.db.dataSource.query(
        `INSERT INTO speech_credentials (organization_id, provider, encrypted_api_key) VALUES ($1, $2, 'v1.x')`,
        [owner.user.organization_id, provider],
      );
    await expect(insert('pocketsphinx')).rejects.toThrow(/speech_credentials_provider_check/);
    await insert('elevenlabs');
    await expect(insert('elevenlabs')).rejects.toThrow(/speech_credentials_pkey/);
  });
});
