import type { Worker } from '@temporalio/worker';
import request from 'supertest';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../bench/fakes/openai-embeddings';
import { createRetriever } from '../../domain/knowledge-base/retrieval-tool';
import { fullTextSearch } from '../../domain/knowledge-base/search';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import {
  documentSettled,
  makeDocx,
  makeMarkdown,
  makePdf,
  uploadDocument,
  type DocumentBody,
} from '../helpers/documents';
import { DELIVERY_MARKDOWN, HANDBOOK_PDF, QUESTIONS, SERVICE_DOCX } from '../helpers/knowledge-base-corpus';
import { knowledgeBaseSearchDeps, knowledgeBaseWorker } from '../helpers/knowledge-base-worker';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { uniqueTaskQueue } from '../helpers/temporal';

const services = useTestServices();
const taskQueue = uniqueTaskQueue('knowledge-base-embeddings');
const API_KEY = 'sk-fake-embeddings-key';
const MODEL = 'fake-embedding-small';

/** Questions worded with typos or other forms than the text's, where spelling-aware vectors help. */
const REWORDED: { question: string; answer: string }[] = [
  { question: 'Whats the adress of the bike shop?', answer: '14 Quay Street' },
  { question: 'refnds how many days', answer: 'Refunds are issued within 14 days' },
  { question: 'deposits for renting', answer: 'deposit of 200 euros' },
  { question: 'paymnt with mastercards', answer: 'MB Way' },
];

let worker: Worker;
let running: Promise<void>;
let app: TestServer;
let owner: SignedUp;
let other: SignedUp;
let endpoint: FakeEmbeddings;
const uuids: string[] = [];

const as = (method: 'get' | 'post' | 'put' | 'delete', path: string, caller = owner) =>
  request(app)[method](`/api/v1${path}`).auth(caller.token, { type: 'bearer' });

async function ingest(content: Buffer, fileName: string): Promise<DocumentBody> {
  const res = await uploadDocument(app, owner.token, content, fileName);
  expect(res.status).toBe(201);
  return documentSettled(app, owner.token, (res.body as DocumentBody).document_uuid);
}

async function credential(token: string): Promise<string> {
  const res = await as('post', '/credentials').send({
    name: `embeddings ${token.slice(-6)}`,
    credential_type: 'bearer_token',
    credential_data: { token },
  });
  expect(res.status).toBe(201);
  return (res.body as { uuid: string }).uuid;
}

beforeAll(async () => {
  endpoint = await startFakeEmbeddings({ apiKey: API_KEY, dimensions: 256, failFirst: 2 });
  app = services.server({
    TEMPORAL_TASK_QUEUE: taskQueue,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    SECRETS_KEY: TEST_SECRETS_KEY,
  });
  owner = await signUp(app);
  other = await signUp(app);
});

afterAll(() => endpoint.close());

describe('with a worker processing documents', () => {
  beforeAll(async () => {
    worker = await knowledgeBaseWorker(services, taskQueue);
    running = worker.run();
  });
  afterAll(async () => {
    worker.shutdown();
    await running;
  });

  it('sets the organization’s endpoint with a credential of its own only', async () => {
    expect((await as('get', '/knowledge-base/embeddings')).status).toBe(404);
    const foreign = await as('post', '/credentials', other).send({
      name: 'theirs',
      credential_type: 'bearer_token',
      credential_data: { token: API_KEY },
    });
    const refused = await as('put', '/knowledge-base/embeddings').send({
      base_url: `${endpoint.httpUrl}/v1`,
      model: MODEL,
      credential_uuid: (foreign.body as { uuid: string }).uuid,
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('credential_uuid');
    const badUrl = await as('put', '/knowledge-base/embeddings').send({ base_url: 'ftp://example.com', model: MODEL });
    expect(badUrl.status).toBe(422);

    const set = await as('put', '/knowledge-base/embeddings').send({
      base_url: `${endpoint.httpUrl}/v1`,
      model: MODEL,
      credential_uuid: await credential(API_KEY),
      batch_size: 3,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ model: MODEL, batch_size: 3 });
    expect((await as('get', '/knowledge-base/embeddings')).body).toMatchObject({ model: MODEL });
    expect((await as('get', '/knowledge-base/embeddings', other)).status).toBe(404);
  });

  it('embeds every chunk in batches during processing, through the endpoint’s failures, before completing', async () => {
    // The three side by side: each waits on its workflow and on the endpoint's retries.
    const documents = await Promise.all([
      makePdf(HANDBOOK_PDF).then((pdf) => ingest(pdf, 'handbook.pdf')),
      makeDocx(SERVICE_DOCX).then((docx) => ingest(docx, 'service.docx')),
      ingest(makeMarkdown(DELIVERY_MARKDOWN), 'delivery.md'),
    ]);
    for (const document of documents) {
      expect(document).toMatchObject({ status: 'completed', progress_percent: 100 });
      uuids.push(document.document_uuid);
    }
    expect(endpoint.failures).toBe(2);
    expect(Math.max(...endpoint.batches)).toBeLessThanOrEqual(3);
    const [counts] = await services.db.dataSource.query<{ chunks: number; embedded: number; models: string[] }[]>(
      `SELECT count(*)::int AS chunks, count(c.embedding)::int AS embedded, array_agg(DISTINCT d.embedding_model) AS models
         FROM knowledge_base_chunks c JOIN knowledge_base_documents d ON d.id = c.document_id
        WHERE d.id = ANY($1::uuid[])`,
      [uuids],
    );
    expect(counts).toMatchObject({ embedded: counts?.chunks, models: [MODEL] });
    expect(counts?.chunks).toBeGreaterThanOrEqual(6);
  }, 180_000);

  it('finds the expected passages at least as often as full text alone (recall at 3)', async () => {
    const questions = [...QUESTIONS, ...REWORDED];
    let textual = 0;
    let hybrid = 0;
    for (const { question, answer } of questions) {
      const res = await as('post', '/knowledge-base/search').send({ query: question, top_k: 3 });
      expect(res.status).toBe(200);
      expect(res.body.mode).toBe('hybrid');
      if ((res.body.results as { content: string }[]).some((hit) => hit.content.includes(answer))) hybrid += 1;
      const text = await fullTextSearch(services.db.dataSource, owner.user.organization_id, {
        query: question,
        topK: 3,
      });
      if (text.some((hit) => hit.content.includes(answer))) textual += 1;
    }
    process.stdout.write(
      `knowledge base recall@3 over ${questions.length} questions: full text ${textual / questions.length}, ` +
        `hybrid ${hybrid / questions.length}\n`,
    );
    expect(hybrid).toBeGreaterThanOrEqual(textual);
    expect(hybrid / questions.length).toBeGreaterThanOrEqual(0.9);
  });

  it('retrieves in a conversation with both rankings, never another organization’s chunks', async () => {
    const own = await createRetriever(knowledgeBaseSearchDeps(services), owner.user.organization_id)(
      uuids,
      'Whats the adress of the bike shop?',
    );
    expect(JSON.stringify(own)).toContain('14 Quay Street');
    const foreign = await createRetriever(knowledgeBaseSearchDeps(services), other.user.organization_id)(
      uuids,
      'Whats the adress of the bike shop?',
    );
    expect(foreign).toEqual({ ok: true, data: { results: [] } });
    const theirs = await as('post', '/knowledge-base/search', other).send({ query: 'Quay Street' });
    expect(theirs.body).toEqual({ mode: 'full_text', results: [] });
  });

  it('fails a document with the endpoint’s refusal, and searches by full text once the endpoint is removed', async () => {
    const wrong = await as('put', '/knowledge-base/embeddings').send({
      base_url: `${endpoint.httpUrl}/v1`,
      model: MODEL,
      credential_uuid: await credential('sk-not-the-right-key'),
    });
    expect(wrong.status).toBe(200);
    const refused = await ingest(
      makeMarkdown([{ heading: 'Gift cards', paragraphs: ['Gift cards never expire.'] }]),
      'gifts.md',
    );
    expect(refused.status).toBe('failed');
    expect(refused.failure_reason).toContain('401');
    const [{ chunks } = { chunks: -1 }] = await services.db.dataSource.query<{ chunks: number }[]>(
      'SELECT count(*)::int AS chunks FROM knowledge_base_chunks WHERE document_id = $1',
      [refused.document_uuid],
    );
    expect(chunks).toBe(0);

    expect((await as('delete', '/knowledge-base/embeddings')).status).toBe(200);
    expect((await as('delete', '/knowledge-base/embeddings')).status).toBe(404);
    const res = await as('post', '/knowledge-base/search').send({ query: 'How much is a tune-up?', top_k: 3 });
    expect(res.body.mode).toBe('full_text');
    expect(JSON.stringify(res.body.results)).toContain('tune-up costs 65 euros');
  }, 120_000);
});
