import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { COMPOSE_FILE, ensureDockerCompose, validateComposeFile } from '../../scripts/compose-tools';

/**
 * docker-compose.yml is what `docker compose up` will load: Debian's docker-compose validates it
 * (schema, value types, interpolation) without a container engine, and refuses broken copies.
 */
let dockerCompose: string;
let scratch: string;

beforeAll(async () => {
  // On a fresh machine this installs the Debian package first.
  dockerCompose = await ensureDockerCompose();
  scratch = mkdtempSync(join(tmpdir(), 'switchboard-compose-'));
}, 300_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of docker-compose.yml (anchors and merges kept) with one change, in the scratch folder. */
function changedCopy(name: string, change: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(COMPOSE_FILE, 'utf8'));
  change(doc);
  const file = join(scratch, `${name}.yml`);
  writeFileSync(file, doc.toString());
  return file;
}

it('validates docker-compose.yml', () => {
  expect(validateComposeFile(dockerCompose, COMPOSE_FILE)).toEqual({ valid: true, output: '' });
});

it('validates an unchanged copy, so the refusals below are the changes', () => {
  expect(
    validateComposeFile(
      dockerCompose,
      changedCopy('unchanged', () => undefined),
    ).valid,
  ).toBe(true);
});

it('refuses an unknown key', () => {
  const file = changedCopy('unknown-key', (doc) => doc.setIn(['services', 'worker', 'restart_policy'], 'always'));
  const verdict = validateComposeFile(dockerCompose, file);
  expect(verdict.valid).toBe(false);
  expect(verdict.output).toMatch(/services\.worker.*restart_policy/);
});

it('refuses a value of the wrong type', () => {
  const file = changedCopy('wrong-type', (doc) =>
    doc.setIn(['services', 'temporal', 'healthcheck', 'retries'], 'sixty'),
  );
  const verdict = validateComposeFile(dockerCompose, file);
  expect(verdict.valid).toBe(false);
  expect(verdict.output).toMatch(/temporal\.healthcheck\.retries.*"sixty" is not a valid integer/);
});

it('refuses a dependency on a service that does not exist', () => {
  const file = changedCopy('missing-service', (doc) =>
    doc.setIn(['services', 'api', 'depends_on', 'redis'], doc.createNode({ condition: 'service_healthy' })),
  );
  const verdict = validateComposeFile(dockerCompose, file);
  expect(verdict.valid).toBe(false);
  expect(verdict.output).toMatch(/redis/);
});
