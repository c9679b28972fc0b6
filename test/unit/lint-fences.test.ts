import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The dependency rules of docs/architecture.md, as eslint.config.js enforces them: each snippet is
 * linted as if it were a file at that path. Type-aware rules are off here, so that a file that does
 * not exist can be linted; the fences need no types.
 */

const root = join(__dirname, '..', '..');
// Given as an object: ESLint would load the file with a dynamic import(), which jest's sandbox refuses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require('../../eslint.config.js') as ESLint.Options['baseConfig'];
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  baseConfig: config,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      ...tseslint.configs.disableTypeChecked,
      languageOptions: { parserOptions: { projectService: false, project: null } },
    },
  ],
});

/** The import restrictions a snippet at `path` breaks. */
async function fencesBroken(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  if (!result) throw new Error(`${path} was not linted`);
  const fatal = result.messages.find((message) => message.fatal);
  if (fatal) throw new Error(`${path}: ${fatal.message}`);
  return result.messages
    .filter((message) => /no-restricted-imports$/.test(message.ruleId ?? ''))
    .map((message) => message.message);
}

const uses = (name: string) => `export const used = ${name};\n`;

describe('workflow code imports activities as types only', () => {
  it.each([
    ['workflows/x.workflow.ts', '../activities'],
    ['workflows/call/x.ts', '../../activities/call.activities'],
    ['workflows/campaign/x.ts', '../../activities'],
    ['bench/workflows/x.workflow.ts', '../../activities/campaign.activities'],
  ])('%s may not import %s as a value', async (path, source) => {
    const code = `import { createActivities } from '${source}';\n${uses('createActivities')}`;
    expect(await fencesBroken(path, code)).toEqual([expect.stringContaining('activities as types only')]);
  });

  it('allows a type import from activities/, and a workflow folder its own activities proxy', async () => {
    const typeOnly = `import type { Activities } from '../../activities';\nexport type Used = Activities;\n`;
    expect(await fencesBroken('workflows/call/x.ts', typeOnly)).toEqual([]);
    const ownProxy = `import { activities } from './activities';\n${uses('activities')}`;
    expect(await fencesBroken('workflows/campaign/x.ts', ownProxy)).toEqual([]);
  });

  it('keeps Node builtins out of workflow code', async () => {
    const code = `import { readFileSync } from 'node:fs';\n${uses('readFileSync')}`;
    expect(await fencesBroken('workflows/call/x.ts', code)).toEqual([expect.stringContaining('Node builtins')]);
  });
});

describe('outside workflow code, nothing loads workflow code', () => {
  it.each([
    ['domain/calls/x.ts', '../../workflows/call.workflow', 'callWorkflow'],
    ['domain/campaigns/x.ts', '../../workflows/campaign/tracker', 'CampaignTracker'],
    ['entities/x.ts', '../workflows/campaign.workflow', 'campaignWorkflow'],
    ['api/routes/x.ts', '../../workflows', 'healthCheckWorkflow'],
    ['activities/x.ts', '../workflows/health-check.workflow', 'healthCheckWorkflow'],
    ['platform/x.ts', '../workflows/call/paced-dial', 'pacedDial'],
  ])('%s may not import %s', async (path, source, name) => {
    const code = `import { ${name} } from '${source}';\n${uses(name)}`;
    expect(await fencesBroken(path, code)).toEqual([
      expect.stringContaining('Only workflow code imports workflow code'),
    ]);
  });

  it('allows types, and the contract: definitions and search attributes', async () => {
    const typeOnly = `import type { callWorkflow } from '../../workflows/call.workflow';\nexport type Used = typeof callWorkflow;\n`;
    expect(await fencesBroken('domain/calls/x.ts', typeOnly)).toEqual([]);
    const contract =
      `import { callWorkflowId } from '../../workflows/definitions';\n` +
      `import { AgentIdAttribute } from '../../workflows/search-attributes';\n` +
      `import { textChatWorkflowId } from '../../workflows/text-chat/definitions';\n` +
      `export const used = [callWorkflowId, AgentIdAttribute, textChatWorkflowId];\n`;
    expect(await fencesBroken('api/routes/x.ts', contract)).toEqual([]);
  });
});

describe('the HTTP layer calls the domain, never the reverse', () => {
  it.each([
    ['domain/calls/x.ts', '../../api/errors'],
    ['entities/x.ts', '../api'],
    ['workflows/x.ts', '../api/schemas/calls'],
  ])('%s may not import %s', async (path, source) => {
    const code = `import { x } from '${source}';\n${uses('x')}`;
    expect(await fencesBroken(path, code)).toEqual([expect.stringMatching(/import(s)? the HTTP layer|Only api\//)]);
  });

  it('keeps Koa out of the domain, and lets packages named api through', async () => {
    const koa = `import Koa from 'koa';\n${uses('Koa')}`;
    expect(await fencesBroken('domain/x.ts', koa)).toEqual([expect.stringContaining('no HTTP framework')]);
    const otel = `import { trace } from '@opentelemetry/api';\n${uses('trace')}`;
    expect(await fencesBroken('domain/x.ts', otel)).toEqual([]);
  });
});

describe('activities call the domain, never the reverse', () => {
  it.each([
    ['domain/calls/x.ts', '../../activities/call.activities', 'createCallActivities'],
    ['domain/x.ts', '../activities', 'createActivities'],
  ])('%s may not import %s', async (path, source, name) => {
    const code = `import { ${name} } from '${source}';\n${uses(name)}`;
    expect(await fencesBroken(path, code)).toEqual([expect.stringContaining('does not import activities/')]);
  });

  it('not even its types', async () => {
    const typeOnly = `import type { FinalizedRun } from '../../activities/call.activities';\nexport type Used = FinalizedRun;\n`;
    expect(await fencesBroken('domain/calls/x.ts', typeOnly)).toEqual([
      expect.stringContaining('does not import activities/'),
    ]);
  });
});

/** The data-access fences a snippet at `path` breaks: restricted imports and restricted calls. */
async function dataAccessBroken(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  if (!result) throw new Error(`${path} was not linted`);
  return result.messages
    .filter((message) => /no-restricted-(imports|syntax)$/.test(message.ruleId ?? ''))
    .map((message) => message.message);
}

describe('API routes hold no database access', () => {
  it.each([
    ['a transaction', `export const f = (d: any) => d.transaction(async () => 1);\n`],
    ['a raw query', `export const f = (d: any) => d.query('SELECT 1');\n`],
    ['a TypeORM repository', `export const f = (d: any) => d.getRepository('Run');\n`],
    ['a query builder', `export const f = (d: any) => d.createQueryBuilder();\n`],
    ['an entity manager', `export const f = (d: any) => d.manager;\n`],
    ['typeorm', `import { IsNull } from 'typeorm';\n${uses('IsNull')}`],
    ['an entity as a value', `import { Run } from '../../entities';\n${uses('Run')}`],
    ['a repository', `import { x } from '../../entities/repositories/run.repository';\n${uses('x')}`],
  ])('api/routes/ may not use %s', async (_, code) => {
    expect(await dataAccessBroken('api/routes/x.ts', code)).toEqual([
      expect.stringContaining('API routes hold no database access'),
    ]);
  });

  it('allows entity types, and the same code outside the routes', async () => {
    const entityType = `import type { Run } from '../../entities';\nexport type Used = Run;\n`;
    expect(await dataAccessBroken('api/routes/x.ts', entityType)).toEqual([]);
    const transaction = `export const f = (d: any) => d.transaction(async () => 1);\n`;
    expect(await dataAccessBroken('entities/repositories/x.repository.ts', transaction)).toEqual([]);
  });
});

describe('the domain, activities, telephony, voice and workers reach the database through repositories', () => {
  it.each([
    ['domain/x.ts', 'a raw query', `export const f = (dataSource: any) => dataSource.query('SELECT 1');\n`],
    ['activities/x.ts', "a dependency's query", `export const f = (deps: any) => deps.dataSource.query('SELECT 1');\n`],
    ['telephony/x.ts', 'a transaction', `export const f = (manager: any) => manager.transaction(async () => 1);\n`],
    ['voice/x.ts', 'a TypeORM repository', `export const f = (d: any) => d.getRepository('Run');\n`],
    ['workers/x.ts', 'a query builder', `export const f = (d: any) => d.createQueryBuilder();\n`],
    ['domain/x.ts', 'an entity manager', `export const f = (d: any) => d.manager;\n`],
  ])('%s may not use %s', async (path, _, code) => {
    expect(await dataAccessBroken(path, code)).toEqual([expect.stringContaining('entities/repositories/')]);
  });

  it("allows a Temporal workflow query, a repository's transaction, and SQL inside a repository", async () => {
    const workflowQuery = `export const f = (handle: any) => handle.query('progress');\n`;
    expect(await dataAccessBroken('domain/x.ts', workflowQuery)).toEqual([]);
    const repositoryTransaction = `export const f = (runs: any) => runs.transaction(async () => 1);\n`;
    expect(await dataAccessBroken('domain/x.ts', repositoryTransaction)).toEqual([]);
    const sql = `export const f = (manager: any) => manager.query('SELECT 1');\n`;
    expect(await dataAccessBroken('entities/repositories/x.repository.ts', sql)).toEqual([]);
  });
});
