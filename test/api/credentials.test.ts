import request from 'supertest';
import { Secrets } from '../../telephony/secrets';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const BASE = '/api/v1/credentials';
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));
const QUOTA = 4;

const TOKEN = 'tok_live_0123456789abcdefWXYZ';
const PASSWORD = 'correct-horse-battery-staple';
const masked = (secret: string) => `${'*'.repeat(secret.length - 4)}${secret.slice(-4)}`;

let app: TestServer;
let owner: SignedUp;
beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, QUOTA_CREDENTIALS: String(QUOTA) });
  owner = await signUp(app);
});

type Method = 'get' | 'post' | 'put' | 'delete';
const as = (method: Method, path: string, caller: SignedUp = owner) =>
  request(app)[method](path).auth(caller.token, { type: 'bearer' });
const withKey = (method: Method, path: string, key: string) => request(app)[method](path).set('X-API-Key', key);

/** The row exactly as PostgreSQL returns it, as text. */
const storedText = async (uuid: string): Promise<string | undefined> => {
  const [row] = await services.db.dataSource.query<{ data: string }[]>(
    'SELECT credential_data::text AS data FROM credentials WHERE uuid = $1',
    [uuid],
  );
  return row?.data;
};
const storedData = async (uuid: string): Promise<Record<string, unknown>> =>
  JSON.parse((await storedText(uuid)) ?? 'null') as Record<string, unknown>;
const opened = (value: unknown) => secrets.open((value as { enc: string }).enc);

const create = async (caller: SignedUp, body: object) => {
  const res = await as('post', BASE, caller).send(body);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { uuid: string; credential_data: Record<string, string> };
};

const keyWithScope = async (caller: SignedUp, scope: 'read' | 'calls' | 'admin') => {
  const res = await as('post', '/api/v1/user/api-keys', caller).send({ name: scope, scope });
  expect(res.status).toBe(201);
  return res.body.api_key as string;
};

const webhookNode = (data: Record<string, unknown>) => ({
  id: 'crm',
  type: 'webhook',
  position: { x: 400, y: 0 },
  data: { name: 'CRM', endpoint_url: 'https://crm.example.com/hooks/calls', ...data },
});
const withNodes = (...nodes: object[]) => {
  const base = sampleDefinition();
  return { ...base, nodes: [...base.nodes, ...nodes] };
};

describe('create, read, update, delete', () => {
  it('stores each type with its secret sealed and answers it masked', async () => {
    const org = await signUp(app);
    const cases = [
      {
        credential_type: 'api_key',
        credential_data: { api_key: TOKEN },
        shown: { header_name: 'X-API-Key', api_key: masked(TOKEN) },
        secret: ['api_key', TOKEN],
      },
      {
        credential_type: 'bearer_token',
        credential_data: { token: TOKEN },
        shown: { token: masked(TOKEN) },
        secret: ['token', TOKEN],
      },
      {
        credential_type: 'basic_auth',
        credential_data: { username: 'switchboard', password: PASSWORD },
        shown: { username: 'switchboard', password: masked(PASSWORD) },
        secret: ['password', PASSWORD],
      },
      {
        credential_type: 'custom_header',
        credential_data: { header_name: 'X-Shop-Token', header_value: 'k#9!' },
        // Four characters or fewer are masked whole.
        shown: { header_name: 'X-Shop-Token', header_value: '****' },
        secret: ['header_value', 'k#9!'],
      },
    ] as const;
    for (const [index, { credential_type, credential_data, shown, secret }] of cases.entries()) {
      const res = await as('post', BASE, org).send({
        name: `Key ${index}`,
        description: 'For the CRM',
        credential_type,
        credential_data,
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: `Key ${index}`,
        description: 'For the CRM',
        credential_type,
        credential_data: shown,
        created_at: expect.stringMatching(/^\d{4}-/),
        updated_at: expect.stringMatching(/^\d{4}-/),
      });
      expect((await as('get', `${BASE}/${res.body.uuid}`, org)).body).toEqual(res.body);

      // PostgreSQL holds the secret sealed: neither it nor its tail appears in the stored bytes.
      const [field, value] = secret;
      const text = await storedText(res.body.uuid as string);
      expect(text).not.toContain(value);
      if (value.length > 4) expect(text).not.toContain(value.slice(-8));
      const data = await storedData(res.body.uuid as string);
      expect(data[field]).toEqual({ enc: expect.stringMatching(/^v1\./) });
      expect(opened(data[field])).toBe(value);
    }

    const list = await as('get', BASE, org);
    expect(list.status).toBe(200);
    expect((list.body as { name: string }[]).map((credential) => credential.name)).toEqual([
      'Key 0',
      'Key 1',
      'Key 2',
      'Key 3',
    ]);
  });

  it('keeps the stored secret when its mask is sent back, and replaces it otherwise', async () => {
    const org = await signUp(app);
    const created = await create(org, {
      name: 'CRM',
      credential_type: 'api_key',
      credential_data: { header_name: 'X-Api-Token', api_key: TOKEN },
    });
    const before = await storedData(created.uuid);

    const roundtrip = await as('put', `${BASE}/${created.uuid}`, org).send({
      name: 'CRM (renamed)',
      credential_data: created.credential_data,
    });
    expect(roundtrip.status).toBe(200);
    expect(roundtrip.body).toMatchObject({ name: 'CRM (renamed)', credential_data: created.credential_data });
    // Untouched: the same sealed bytes, not a new encryption of the mask.
    expect(await storedData(created.uuid)).toEqual(before);

    // A field not sent keeps its value too; another run of `*` is a new secret.
    const header = await as('put', `${BASE}/${created.uuid}`, org).send({ credential_data: { header_name: 'X-Key' } });
    expect(header.body.credential_data).toEqual({ header_name: 'X-Key', api_key: masked(TOKEN) });
    expect(opened((await storedData(created.uuid)).api_key)).toBe(TOKEN);
    const stars = '*'.repeat(TOKEN.length);
    await as('put', `${BASE}/${created.uuid}`, org).send({ credential_data: { api_key: stars } });
    expect(opened((await storedData(created.uuid)).api_key)).toBe(stars);

    const replaced = await as('put', `${BASE}/${created.uuid}`, org).send({
      credential_data: { api_key: 'new-secret-9876' },
    });
    expect(replaced.body.credential_data.api_key).toBe(masked('new-secret-9876'));
    expect(opened((await storedData(created.uuid)).api_key)).toBe('new-secret-9876');
  });

  it('changes the type only with the new type’s fields in full', async () => {
    const org = await signUp(app);
    const created = await create(org, {
      name: 'Swap',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    const partial = await as('put', `${BASE}/${created.uuid}`, org).send({
      credential_type: 'basic_auth',
      credential_data: { username: 'ops' },
    });
    expect(partial.status).toBe(422);
    expect(partial.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'credential_data', 'password'], type: 'missing' }),
    ]);
    const swapped = await as('put', `${BASE}/${created.uuid}`, org).send({
      credential_type: 'basic_auth',
      credential_data: { username: 'ops', password: PASSWORD },
    });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({
      credential_type: 'basic_auth',
      credential_data: { username: 'ops', password: masked(PASSWORD) },
    });
    expect(Object.keys(await storedData(created.uuid)).sort()).toEqual(['password', 'username']);
  });

  it('deletes, then answers 404', async () => {
    const org = await signUp(app);
    const created = await create(org, {
      name: 'Gone',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    const deleted = await as('delete', `${BASE}/${created.uuid}`, org);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'deleted', uuid: created.uuid });
    expect((await as('get', `${BASE}/${created.uuid}`, org)).status).toBe(404);
    expect(await storedText(created.uuid)).toBeUndefined();
  });
});

describe('bad input', () => {
  it('refuses unknown types and fields, header-splitting values and a duplicate name', async () => {
    const org = await signUp(app);
    const refused = [
      { name: 'x', credential_type: 'oauth', credential_data: { token: TOKEN } },
      { name: 'x', credential_type: 'bearer_token', credential_data: { token: TOKEN, extra: 1 } },
      { name: 'x', credential_type: 'bearer_token', credential_data: { token: `${TOKEN}\r\nX-Evil: 1` } },
      { name: 'x', credential_type: 'custom_header', credential_data: { header_name: 'Bad Name', header_value: 'v1' } },
      { name: 'x', credential_type: 'basic_auth', credential_data: { username: 'a:b', password: PASSWORD } },
      { name: ' ', credential_type: 'bearer_token', credential_data: { token: TOKEN } },
    ];
    for (const body of refused) {
      const res = await as('post', BASE, org).send(body);
      expect(res.status).toBe(422);
    }
    expect((await as('get', BASE, org)).body).toEqual([]);

    await create(org, { name: 'Same', credential_type: 'bearer_token', credential_data: { token: TOKEN } });
    const duplicate = await as('post', BASE, org).send({
      name: 'Same',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.detail).toBe(
      "A credential named 'Same' already exists in this organization. Pick a different name.",
    );
    expect((await as('get', `${BASE}/not-a-uuid`, org)).status).toBe(404);
  });

  it(`answers 409 past QUOTA_CREDENTIALS, keeping what was stored`, async () => {
    const org = await signUp(app);
    for (let n = 0; n < QUOTA; n += 1) {
      await create(org, { name: `Q${n}`, credential_type: 'bearer_token', credential_data: { token: TOKEN } });
    }
    const over = await as('post', BASE, org).send({
      name: 'One too many',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toBe(
      `Quota exceeded: an organization may have at most ${QUOTA} credentials (credentials, QUOTA_CREDENTIALS)`,
    );
    expect((await as('get', BASE, org)).body).toHaveLength(QUOTA);
  });
});

describe('tenancy and scopes', () => {
  it("answers 404 for another organization's credential, and changes nothing of it", async () => {
    const other = await signUp(app);
    const theirs = await create(other, {
      name: 'Theirs',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    const before = await storedData(theirs.uuid);
    for (const method of ['get', 'put', 'delete'] as const) {
      const res = await as(method, `${BASE}/${theirs.uuid}`).send(method === 'put' ? { name: 'Mine now' } : undefined);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Credential not found' });
    }
    expect((await as('get', BASE)).body).not.toContainEqual(expect.objectContaining({ uuid: theirs.uuid }));
    expect(await storedData(theirs.uuid)).toEqual(before);
    expect((await as('get', `${BASE}/${theirs.uuid}`, other)).body.name).toBe('Theirs');
  });

  it('lets a read key list and read (masked) but not write; an admin key writes', async () => {
    const org = await signUp(app);
    const created = await create(org, {
      name: 'Scoped',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    const read = await keyWithScope(org, 'read');
    expect((await withKey('get', BASE, read)).body).toEqual([created]);
    expect((await withKey('get', `${BASE}/${created.uuid}`, read)).body).toEqual(created);
    const refusals = [
      withKey('post', BASE, read).send({
        name: 'R',
        credential_type: 'bearer_token',
        credential_data: { token: TOKEN },
      }),
      withKey('put', `${BASE}/${created.uuid}`, read).send({ name: 'R' }),
      withKey('delete', `${BASE}/${created.uuid}`, read),
    ];
    for (const res of await Promise.all(refusals)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: "This API key's scope is read; this route needs admin" });
    }
    const calls = await keyWithScope(org, 'calls');
    expect((await withKey('delete', `${BASE}/${created.uuid}`, calls)).status).toBe(403);

    const admin = await keyWithScope(org, 'admin');
    const made = await withKey('post', BASE, admin).send({
      name: 'By key',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    expect(made.status).toBe(201);
    expect((await withKey('get', BASE, read)).body).toHaveLength(2);
  });
});

describe('agents that name a credential', () => {
  it("refuses a missing or another organization's credential with 422 at the node", async () => {
    const other = await signUp(app);
    const theirs = await create(other, {
      name: 'Theirs',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    for (const uuid of [theirs.uuid, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await as('post', '/api/v1/workflow/create/definition').send({
        name: 'Borrower',
        workflow_definition: withNodes(webhookNode({ credential_uuid: uuid })),
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        {
          loc: ['body', 'workflow_definition', 'nodes', 3, 'data', 'credential_uuid'],
          msg: `No credential with uuid ${uuid} in this organization (GET /api/v1/credentials lists them)`,
          type: 'value_error',
        },
      ]);
    }
    const agent = await createAgent(app, owner.token);
    const update = await as('put', `/api/v1/workflow/${agent.id}`).send({
      workflow_definition: withNodes(webhookNode({ credential_uuid: theirs.uuid })),
    });
    expect(update.status).toBe(422);
    expect(update.body.detail[0].loc).toEqual(['body', 'workflow_definition', 'nodes', 3, 'data', 'credential_uuid']);
  });

  it('keeps a credential an agent uses from being deleted (409), until the agent stops using it', async () => {
    const org = await signUp(app);
    const used = await create(org, {
      name: 'Used',
      credential_type: 'bearer_token',
      credential_data: { token: TOKEN },
    });
    const agent = await createAgent(
      app,
      org.token,
      withNodes(webhookNode({ credential_uuid: used.uuid })),
      'CRM agent',
    );
    const refused = await as('delete', `${BASE}/${used.uuid}`, org);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      `The credential is used by agent 'CRM agent' (id ${agent.id}); remove it from their nodes first.`,
    );
    const dropped = await as('put', `/api/v1/workflow/${agent.id}`, org).send({
      workflow_definition: withNodes(webhookNode({})),
    });
    expect(dropped.status).toBe(200);
    expect((await as('delete', `${BASE}/${used.uuid}`, org)).status).toBe(200);
  });
});
