import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApiKey, signUp } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { useTestServices } from '../helpers/services';

/**
 * The document is usable, not just valid: a client generated from it (openapi-typescript types,
 * openapi-fetch calls) type-checks under strict TypeScript and talks to the running API.
 */
const services = useTestServices();
const run = promisify(execFile);
const root = join(__dirname, '..', '..');
let http: Server;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  const { app } = buildTestApp({ dataSource: services.db.dataSource, temporal: services.temporal.client });
  const handle = app.callback();
  http = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'switchboard-client-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
});

afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A program a user of the generated client would write: every call is checked against the document. */
const clientProgram = `import createClient from 'openapi-fetch';
import type { paths } from './schema';

async function main(): Promise<void> {
  const [baseUrl, apiKey] = process.argv.slice(2) as [string, string];
  const client = createClient<paths>({ baseUrl: baseUrl + '/api/v1', headers: { 'X-API-Key': apiKey } });
  const created = await client.POST('/user/api-keys', { body: { name: 'generated client', scope: 'read' } });
  if (!created.data) throw new Error('create answered ' + JSON.stringify(created.error));
  const listed = await client.GET('/user/api-keys', { params: { query: { include_archived: 'false' } } });
  if (!listed.data?.some((key) => key.id === created.data.id)) throw new Error('list answered ' + JSON.stringify(listed.error));
  // Fields with a default may be left out, at any depth: the key's scope, the configuration's
  // is_default_outbound and the simulator's timings.
  const defaulted = await client.POST('/user/api-keys', { body: { name: 'default scope' } });
  if (!defaulted.data) throw new Error('a key without a scope answered ' + JSON.stringify(defaulted.error));
  const configuration = await client.POST('/organizations/telephony-configs', {
    body: { name: 'generated client', config: { provider: 'simulator' } },
  });
  if (!configuration.data) throw new Error('a configuration without defaults answered ' + JSON.stringify(configuration.error));
  const missing = await client.GET('/campaign/{campaign_id}', { params: { path: { campaign_id: 2147483647 } } });
  if (missing.response.status !== 404 || typeof missing.error?.detail !== 'string') {
    throw new Error('a missing campaign answered ' + missing.response.status);
  }
  console.log(
    JSON.stringify({ key: created.data.id, defaultScope: defaulted.data.scope, configuration: configuration.data.credentials }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

test('a client generated from the document type-checks and drives the API', async () => {
  // The generator's own command line, as a user runs it against a deployment's document.
  await run(join(root, 'node_modules', '.bin', 'openapi-typescript'), [
    `${baseUrl}/api/v1/openapi.json`,
    '--output',
    join(dir, 'schema.ts'),
  ]);
  writeFileSync(join(dir, 'client.ts'), clientProgram);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', skipLibCheck: true },
      files: ['client.ts'],
    }),
  );
  await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')]).catch((error: unknown) => {
    throw new Error(
      `the generated client does not type-check:\n${(error as { stdout?: string }).stdout ?? String(error)}`,
    );
  });

  const account = await signUp(baseUrl);
  const key = await createApiKey(baseUrl, account.token, 'generated client');
  const { stdout } = await run(join(root, 'node_modules', '.bin', 'tsx'), [
    join(dir, 'client.ts'),
    baseUrl,
    key.api_key,
  ]);
  const result = JSON.parse(stdout) as { key: number; defaultScope: string; configuration: Record<string, unknown> };
  expect(result.key).toBeGreaterThan(key.id);
  expect(result.defaultScope).toBe('admin');
  expect(result.configuration).toEqual({ ring_seconds: 1, talk_seconds: 3, audio: false });
}, 120_000);
