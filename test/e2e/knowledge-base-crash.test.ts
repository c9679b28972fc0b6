import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../bench/fakes/openai-embeddings';
import { freePort } from '../../scripts/free-port';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { documentSettled, makeMarkdown, uploadDocument, type DocumentBody, type Section } from '../helpers/documents';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { promoteTestBuild, uniqueTaskQueue } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const root = join(__dirname, '..', '..');
const taskQueue = uniqueTaskQueue('knowledge-base-crash');

/** Sections sharing a word found nowhere else, each its own chunk, each embedded by a slow endpoint. */
const SECTIONS: Section[] = Array.from({ length: 6 }, (_, index) => ({
  heading: `Quillwort storage room ${index + 1}`,
  paragraphs: [
    `Quillwort cuttings in room ${index + 1} are watered every ${index + 2} days and kept away from direct light.`,
  ],
}));

let endpoint: FakeEmbeddings;
let app: TestServer;
let owner: SignedUp;

/** `npm run worker` as its own process, on this file's database and task queue. */
async function startWorker(): Promise<ChildProcess> {
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
      // The embeddings endpoint is a local server.
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      WORKER_METRICS_PORT: String(await freePort()),
      // The run's bundle, as production workers load theirs: a restart does not wait for webpack.
      WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-worker-')),
    },
    stdio: 'ignore',
  });
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

const search = (query: string) =>
  request(app).post('/api/v1/knowledge-base/search').auth(owner.token, { type: 'bearer' }).send({ query, top_k: 5 });

beforeAll(async () => {
  // One chunk per request, each answered after a while: the worker is killed between two of them.
  endpoint = await startFakeEmbeddings({ dimensions: 64, delayMs: 1_000 });
  app = services.server({
    TEMPORAL_TASK_QUEUE: taskQueue,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    SECRETS_KEY: TEST_SECRETS_KEY,
  });
  owner = await signUp(app);
  const set = await request(app)
    .put('/api/v1/knowledge-base/embeddings')
    .auth(owner.token, { type: 'bearer' })
    .send({ base_url: `${endpoint.httpUrl}/v1`, model: 'fake-embedding-small', batch_size: 1 });
  expect(set.status).toBe(200);
});

afterAll(() => endpoint.close());

it('resumes a document whose worker was SIGKILLed mid-way to completed, never searchable half-indexed', async () => {
  const first = await startWorker();
  const workers = [first];
  try {
    await promoteTestBuild(services.temporal.client);
    const upload = await uploadDocument(app, owner.token, makeMarkdown(SECTIONS), 'quillwort.md');
    expect(upload.status).toBe(201);
    const uuid = (upload.body as DocumentBody).document_uuid;

    // Its chunks are written and some, not all, embedded: kill the worker in the middle of the step.
    const chunkCounts = () =>
      services.db.dataSource
        .query<{ chunks: number; embedded: number; status: string }[]>(
          `SELECT count(c.position)::int AS chunks, count(c.embedding)::int AS embedded, d.status
             FROM knowledge_base_documents d LEFT JOIN knowledge_base_chunks c ON c.document_id = d.id
            WHERE d.id = $1 GROUP BY d.status`,
          [uuid],
        )
        .then(([row]) => row);
    const midway = await waitFor(
      'some of the chunks embedded',
      async () => {
        const counts = await chunkCounts();
        return counts && counts.embedded > 0 ? counts : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    await killed(first);
    expect(midway.chunks).toBeGreaterThanOrEqual(SECTIONS.length);
    const afterKill = await chunkCounts();
    expect(afterKill).toMatchObject({ status: 'processing' });
    expect(afterKill?.embedded).toBeLessThan(afterKill?.chunks ?? 0);

    // Written chunks of a document still processing are never found.
    const during = await search('quillwort cuttings watered');
    expect(during.status).toBe(200);
    expect(during.body.results).toEqual([]);

    // The step is tried again on a new worker once the dead one's heartbeat is missed.
    workers.push(await startWorker());
    const settled = await documentSettled(app, owner.token, uuid);
    expect(settled).toMatchObject({ status: 'completed', progress_percent: 100, chunk_count: midway.chunks });
    const done = await chunkCounts();
    expect(done).toMatchObject({ status: 'completed', chunks: midway.chunks, embedded: midway.chunks });

    const after = await search('quillwort cuttings watered');
    expect(after.body.mode).toBe('hybrid');
    expect((after.body.results as { document_uuid: string }[]).length).toBeGreaterThan(0);
    for (const hit of after.body.results as { document_uuid: string }[]) expect(hit.document_uuid).toBe(uuid);
  } finally {
    for (const worker of workers) await killed(worker);
  }
}, 300_000);
