import { randomUUID } from 'node:crypto';
import { startFakeEmbeddings } from './fakes/openai-embeddings';
import { corpusMarkdown, corpusSections, seededRandom } from './knowledge-base-corpus';
import { migrate, say, startDatabase } from './helpers';
import { chunkBlocks } from '../domain/knowledge-base/chunking';
import { fullTextSearch, searchKnowledgeBase } from '../domain/knowledge-base/search';
import { markdownBlocks } from '../domain/knowledge-base/text-blocks';
import { createDataSource } from '../entities/data-source';

/**
 * `npm run bench:knowledge-base`: the knowledge base's processing and search.
 * 1. Chunking throughput: a generated Markdown handbook of BENCH_KB_MARKDOWN_MB (default 3.7 MB)
 *    cut into chunks (token counting included), MB/s and chunks/s.
 * 2. Search latency over BENCH_KB_CHUNKS (default 10,000) chunks in 10 documents of one
 *    organization, on a fresh embedded PostgreSQL (or DATABASE_URL): p50/p95 of BENCH_KB_SEARCHES
 *    full-text searches, and of hybrid searches (full text fused with exact cosine over vectors of
 *    BENCH_KB_DIMENSIONS, default 1536, the query embedded by a local OpenAI-compatible fake).
 *    Target: p95 under 50 ms for both.
 */

const MARKDOWN_MB = Number(process.env.BENCH_KB_MARKDOWN_MB ?? 3.7);
const CHUNKS = Number(process.env.BENCH_KB_CHUNKS ?? 10_000);
const DOCUMENTS = 10;
const SEARCHES = Number(process.env.BENCH_KB_SEARCHES ?? 200);
const DIMENSIONS = Number(process.env.BENCH_KB_DIMENSIONS ?? 1536);
const TARGET_P95_MS = 50;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};

function chunkingThroughput(): void {
  const markdown = corpusMarkdown(corpusSections(MARKDOWN_MB * 1e6));
  const started = performance.now();
  const chunks = chunkBlocks(markdownBlocks(markdown));
  const seconds = (performance.now() - started) / 1000;
  say(
    `chunking: ${(markdown.length / 1e6).toFixed(2)} MB of Markdown into ${chunks.length} chunks in ` +
      `${seconds.toFixed(1)} s (${(markdown.length / 1e6 / seconds).toFixed(2)} MB/s, ${Math.round(chunks.length / seconds)} chunks/s)`,
  );
}

async function searchLatency(): Promise<boolean> {
  const database = await startDatabase();
  const endpoint = await startFakeEmbeddings({ dimensions: DIMENSIONS });
  const dataSource = createDataSource({ url: database.url, applicationName: 'bench-knowledge-base' });
  try {
    await migrate(database.url);
    await dataSource.initialize();
    const [organization] = await dataSource.query<{ id: number }[]>(
      `INSERT INTO organizations (name) VALUES ('bench') RETURNING id`,
    );
    const organizationId = (organization as { id: number }).id;
    await dataSource.query(
      `INSERT INTO knowledge_base_embedding_settings (organization_id, base_url, model, batch_size)
       VALUES ($1, $2, 'fake', 64)`,
      [organizationId, `${endpoint.httpUrl}/v1`],
    );
    const random = seededRandom(5);
    const sections = corpusSections(CHUNKS * 1200, 9, 1);
    const documentIds: string[] = [];
    for (let document = 0; document < DOCUMENTS; document += 1) {
      const id = randomUUID();
      documentIds.push(id);
      await dataSource.query(
        `INSERT INTO knowledge_base_documents (id, organization_id, file_name, file_type, size_bytes, sha256, language,
                                               retrieval_mode, status, embedding_model, completed_at)
         VALUES ($1, $2, $3, 'markdown', 1, $4, 'english', 'chunked', 'completed', 'fake', now())`,
        [id, organizationId, `handbook-${document}.md`, randomUUID().replace(/-/g, '').repeat(2)],
      );
      const perDocument = CHUNKS / DOCUMENTS;
      for (let start = 0; start < perDocument; start += 500) {
        const positions = Array.from({ length: Math.min(500, perDocument - start) }, (_, index) => start + index);
        const texts = positions.map((position) => {
          const section = sections[(document * perDocument + position) % sections.length];
          return { heading: section?.heading ?? '', content: section?.paragraphs.join(' ') ?? '' };
        });
        const vectors = positions.map(() => {
          const values = Array.from({ length: DIMENSIONS }, () => random() - 0.5);
          const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
          return `{${values.map((value) => (value / norm).toFixed(6)).join(',')}}`;
        });
        await dataSource.query(
          `INSERT INTO knowledge_base_chunks (document_id, position, organization_id, heading, content, token_count,
                                              search_vector, embedding)
           SELECT $1, c.position, $2, c.heading, c.content, 300,
                  setweight(to_tsvector('english', c.heading), 'A') || to_tsvector('english', c.content), c.embedding::float4[]
             FROM unnest($3::int[], $4::text[], $5::text[], $6::text[]) AS c (position, heading, content, embedding)`,
          [
            id,
            organizationId,
            positions,
            texts.map((text) => text.heading),
            texts.map((text) => text.content),
            vectors,
          ],
        );
      }
    }
    await dataSource.query('ANALYZE knowledge_base_chunks');
    const queries = sections
      .slice(0, SEARCHES)
      .map((section) => section.paragraphs[0]?.split('. ')[0] ?? section.heading);
    const outbound = { policy: { allowPrivate: true }, credentialHeaders: () => Promise.resolve({}) };
    const measure = async (search: (query: string) => Promise<unknown>) => {
      await search(queries[0] as string);
      const times: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        await search(query);
        times.push(performance.now() - started);
      }
      return { p50: percentile(times, 50), p95: percentile(times, 95) };
    };
    const request = (query: string) => ({ query, documentUuids: documentIds, topK: 3 });
    const textual = await measure((query) => fullTextSearch(dataSource, organizationId, request(query)));
    const hybrid = await measure((query) =>
      searchKnowledgeBase({ db: dataSource, outbound }, organizationId, request(query)),
    );
    const line = (name: string, figures: { p50: number; p95: number }) =>
      `${name}: p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms`;
    say(`search over ${CHUNKS} chunks in ${DOCUMENTS} documents, ${SEARCHES} queries, top 3:`);
    say(`  ${line('full text', textual)}`);
    say(`  ${line(`hybrid (${DIMENSIONS} dimensions, exact cosine in the process)`, hybrid)}`);
    return textual.p95 < TARGET_P95_MS && hybrid.p95 < TARGET_P95_MS;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await endpoint.close();
    await database.stop();
  }
}

async function main(): Promise<void> {
  chunkingThroughput();
  const met = await searchLatency();
  say(met ? `search p95 under ${TARGET_P95_MS} ms: met` : `search p95 under ${TARGET_P95_MS} ms: NOT met`);
  if (!met) process.exitCode = 1;
}

void main();
