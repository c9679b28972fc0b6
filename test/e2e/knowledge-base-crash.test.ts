import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort } from '../../scripts/free-port';
import { signUp } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { documentSettled, uploadDocument } from '../helpers/documents';
import { useTestServices } from '../helpers/services';
import { promoteTestBuild, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const root = join(__dirname, '..', '..');
jest.setTimeout(300_000);

/** `npm run worker` as its own process, on this file's database and task queue. */
async function startWorker(taskQueue: string): Promise<ChildProcess> {
  return spawn(process.execPath, ['--import', 'tsx', join(root, 'workers', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: services.db.url,
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_KEY: TEST_SECRETS_KEY,
      WORKER_METRICS_PORT: String(await freePort()),
      WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-worker-')),
    },
    stdio: 'ignore',
  });
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/** A Markdown manual long enough (several MB) that its processing is still running when the worker is killed. */
function longManual(): Buffer {
  const sections: string[] = [];
  for (let index = 1; index <= 6_000; index += 1) {
    sections.push(
      `## Part ${index}\n\nPart ${index} fits the rear hub of model ${index}. Tighten its bolts to five newton metres, ` +
        'check the chain tension, and grease the bearings once a season. Replace worn brake pads before long rides.\n',
    );
  }
  sections.push('## Locker\n\nThe spare keys are kept in locker heliotrope behind the workshop.\n');
  return Buffer.from(sections.join('\n').repeat(3));
}

it('finishes a document whose worker was killed mid-way, never searchable half-indexed', async () => {
  const taskQueue = uniqueTaskQueue('knowledge-base-crash');
  const { app } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, SECRETS_KEY: TEST_SECRETS_KEY },
  );
  const server = app.callback();
  const owner = await signUp(server);
  const first = await startWorker(taskQueue);
  await promoteTestBuild(services.temporal.client);
  let second: ChildProcess | undefined;
  try {
    const res = await uploadDocument(server, owner.token, longManual(), 'manual.md');
    expect(res.status).toBe(201);
    const uuid = res.body.document_uuid as string;
    const status = async () =>
      (await request(server).get(`/api/v1/knowledge-base/documents/${uuid}`).auth(owner.token, { type: 'bearer' }))
        .body as { status: string; chunk_count: number | null };
    await waitFor('processing to start', async () => (await status()).status === 'processing', {
      timeoutMs: 120_000,
      intervalMs: 50,
    });
    await killed(first);

    const search = () =>
      request(server)
        .post('/api/v1/knowledge-base/search')
        .auth(owner.token, { type: 'bearer' })
        .send({ query: 'locker heliotrope', document_uuids: [uuid] });
    expect((await status()).status).toBe('processing');
    expect((await search()).body.results).toEqual([]);

    second = await startWorker(taskQueue);
    const done = await documentSettled(server, owner.token, uuid);
    expect(done.status).toBe('completed');
    const found = (await search()).body.results as { content: string }[];
    expect(found[0]?.content).toContain('locker heliotrope');
    const [stored] = await services.db.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM knowledge_base_chunks WHERE document_id = $1',
      [uuid],
    );
    expect(stored?.count).toBe(done.chunk_count);
  } finally {
    if (first.exitCode === null) await killed(first);
    if (second) await killed(second);
  }
});
