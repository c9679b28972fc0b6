import type { DataSource, EntityManager } from 'typeorm';
import { loadEmbeddingSettings } from './embedding-settings';
import { embedTexts, type EmbeddingsOutbound } from './embeddings';
import type { SearchHit } from './types';
import { vectorSearch } from './vector-search';

export interface SearchRequest {
  query: string;
  /** Only these documents; undefined: all of the organization's. */
  documentUuids?: readonly string[];
  topK: number;
}

interface HitRow {
  document_id: string;
  file_name: string;
  position: number;
  heading: string;
  content: string;
  page: number | null;
  score: number;
}

/**
 * Full-text search over an organization's completed documents, each in its own language: the
 * query's words, stemmed and stripped of stop words by the document's text search configuration,
 * are OR-ed (a question rarely repeats every word of its answer), and chunks are ranked by
 * `ts_rank` with headings weighted above text and long chunks normalized down. Documents not
 * completed, other organizations' and deleted ones are never searched.
 */
export async function fullTextSearch(
  db: DataSource | EntityManager,
  organizationId: number,
  request: SearchRequest,
): Promise<SearchHit[]> {
  const rows = await db.query<HitRow[]>(
    `WITH documents AS (
       SELECT id, file_name, language FROM knowledge_base_documents
        WHERE organization_id = $1 AND status = 'completed'
          AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
     ),
     queries AS (
       SELECT language,
              to_tsquery('simple', coalesce((
                SELECT string_agg(quote_literal(lexeme), ' | ')
                  FROM unnest(tsvector_to_array(to_tsvector(language::regconfig, $3))) AS lexeme), '')) AS query
         FROM (SELECT DISTINCT language FROM documents) AS languages
     )
     SELECT c.document_id, d.file_name, c.position, c.heading, c.content, c.page,
            ts_rank(c.search_vector, q.query, 1)::float8 AS score
       FROM knowledge_base_chunks c
       JOIN documents d ON d.id = c.document_id
       JOIN queries q ON q.language = d.language
      WHERE c.organization_id = $1 AND c.search_vector @@ q.query
      ORDER BY score DESC, c.document_id, c.position
      LIMIT $4`,
    [organizationId, request.documentUuids ?? null, request.query, request.topK],
  );
  return rows.map((row) => ({
    document_uuid: row.document_id,
    file_name: row.file_name,
    position: row.position,
    heading: row.heading,
    content: row.content,
    page: row.page,
    score: Number(row.score),
  }));
}

/** How a search ranked: full text alone, or full text and vectors fused. */
export const SEARCH_MODES = ['full_text', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export interface SearchOutcome {
  mode: SearchMode;
  results: SearchHit[];
}

/** Candidates each ranking gives the fusion. */
const FUSION_CANDIDATES = 50;
/** Reciprocal rank fusion's constant: a chunk's score is the sum of 1 / (RRF_K + rank) over the rankings. */
const RRF_K = 60;

export interface SearchDeps {
  db: DataSource | EntityManager;
  outbound: EmbeddingsOutbound;
}

/**
 * The organization's search: full text when it has no embeddings endpoint; otherwise full text and
 * vector similarity (over its documents embedded with the endpoint's current model), combined by
 * reciprocal rank fusion. A query the endpoint fails to embed is answered by full text alone.
 */
export async function searchKnowledgeBase(
  { db, outbound }: SearchDeps,
  organizationId: number,
  request: SearchRequest,
): Promise<SearchOutcome> {
  const settings = await loadEmbeddingSettings(db, organizationId);
  if (!settings) return { mode: 'full_text', results: await fullTextSearch(db, organizationId, request) };
  let query: Float32Array | undefined;
  try {
    [query] = await embedTexts(outbound, organizationId, settings, [request.query]);
  } catch {
    query = undefined;
  }
  if (!query) return { mode: 'full_text', results: await fullTextSearch(db, organizationId, request) };
  const candidates = Math.max(FUSION_CANDIDATES, request.topK);
  const embedded = await db.query<{ id: string }[]>(
    `SELECT id FROM knowledge_base_documents
      WHERE organization_id = $1 AND status = 'completed' AND embedding_model = $2
        AND ($3::uuid[] IS NULL OR id = ANY($3::uuid[]))`,
    [organizationId, settings.model, request.documentUuids ?? null],
  );
  const [textual, similar] = await Promise.all([
    fullTextSearch(db, organizationId, { ...request, topK: candidates }),
    vectorSearch(
      db,
      embedded.map((document) => document.id),
      query,
      candidates,
    ),
  ]);
  const fused = new Map<string, { documentId: string; position: number; score: number }>();
  const add = (documentId: string, position: number, rank: number) => {
    const key = `${documentId}:${position}`;
    const entry = fused.get(key) ?? { documentId, position, score: 0 };
    entry.score += 1 / (RRF_K + rank + 1);
    fused.set(key, entry);
  };
  textual.forEach((hit, rank) => add(hit.document_uuid, hit.position, rank));
  similar.forEach((hit, rank) => add(hit.documentId, hit.position, rank));
  const best = [...fused.values()]
    .sort((a, b) => b.score - a.score || a.documentId.localeCompare(b.documentId) || a.position - b.position)
    .slice(0, request.topK);
  const rows = await db.query<Omit<HitRow, 'score'>[]>(
    `SELECT c.document_id, d.file_name, c.position, c.heading, c.content, c.page
       FROM unnest($2::uuid[], $3::int[]) AS wanted (document_id, position)
       JOIN knowledge_base_chunks c ON c.document_id = wanted.document_id AND c.position = wanted.position
       JOIN knowledge_base_documents d ON d.id = c.document_id
      WHERE d.organization_id = $1 AND d.status = 'completed'`,
    [organizationId, best.map((hit) => hit.documentId), best.map((hit) => hit.position)],
  );
  const byKey = new Map(rows.map((row) => [`${row.document_id}:${row.position}`, row]));
  const results = best.flatMap((hit) => {
    const row = byKey.get(`${hit.documentId}:${hit.position}`);
    return row
      ? [
          {
            document_uuid: row.document_id,
            file_name: row.file_name,
            position: row.position,
            heading: row.heading,
            content: row.content,
            page: row.page,
            score: hit.score,
          },
        ]
      : [];
  });
  return { mode: 'hybrid', results };
}
