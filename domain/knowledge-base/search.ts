import type { DataSource, EntityManager } from 'typeorm';
import {
  knowledgeBaseSearchReads,
  type KnowledgeBaseSearchStatements,
} from '../../entities/repositories/knowledge-base-search.repository';
import { loadEmbeddingSettings } from './embedding-settings';
import { embedTexts, type EmbeddingsOutbound } from './embeddings';
import { CompletedDocumentCache } from './completed-document-cache';
import { buildTextIndex, rankChunks, rankingOrder, type DocumentTextIndex } from './text-index';
import type { SearchHit } from './types';
import { vectorSearch } from './vector-search';

export interface SearchRequest {
  query: string;
  /** Only these documents; undefined: all of the organization's. */
  documentUuids?: readonly string[];
  topK: number;
}

/** The most postings (a lexeme in a chunk) kept in memory for full-text ranking (about 100 MB); the least recently used documents go first. */
const MAX_CACHED_POSTINGS = 12 * 1024 * 1024;

const textIndexes = new CompletedDocumentCache<KnowledgeBaseSearchStatements, DocumentTextIndex>(
  MAX_CACHED_POSTINGS,
  (index) => index.chunks.length,
  async (reads, documentId) => buildTextIndex(await reads.chunkSearchVectors(documentId)),
);

/**
 * Full-text search over an organization's completed documents, each in its own language: the
 * query's words, stemmed and stripped of stop words by the document's text search configuration,
 * are OR-ed (a question rarely repeats every word of its answer), and chunks are ranked as
 * `ts_rank(search_vector, query, 1)` ranks them: headings weighted above text, long chunks
 * normalized down. The ranking runs over each document's words kept in memory (see text-index.ts),
 * since a question's common words match most chunks and re-reading their tsvectors on every search
 * costs more than the search may take. Documents not completed, other organizations' and deleted
 * ones are never searched.
 */
export function fullTextSearch(
  db: DataSource | EntityManager,
  organizationId: number,
  request: SearchRequest,
): Promise<SearchHit[]> {
  return rankFullText(knowledgeBaseSearchReads(db), organizationId, request);
}

async function rankFullText(
  reads: KnowledgeBaseSearchStatements,
  organizationId: number,
  request: SearchRequest,
): Promise<SearchHit[]> {
  const documents = await reads.searchedDocuments(organizationId, request.documentUuids ?? null, request.query);
  const ranked = await Promise.all(
    documents.map(async (document) => {
      if (document.lexemes.length === 0) return [];
      const index = await textIndexes.get(reads, { id: document.id, completedAt: document.completed_at });
      return rankChunks(index, rankingOrder(document.lexemes), request.topK).map((hit) => ({ document, ...hit }));
    }),
  );
  const best = topHits(ranked.flat(), request.topK);
  if (best.length === 0) return [];
  const rows = await reads.chunksAt(
    best.map((hit) => hit.document.id),
    best.map((hit) => hit.position),
  );
  const byKey = new Map(rows.map((row) => [`${row.document_id}:${row.position}`, row]));
  return best.flatMap((hit) => {
    const row = byKey.get(`${hit.document.id}:${hit.position}`);
    return row
      ? [
          {
            document_uuid: hit.document.id,
            file_name: hit.document.file_name,
            position: hit.position,
            heading: row.heading,
            content: row.content,
            page: row.page,
            score: hit.score,
          },
        ]
      : [];
  });
}

/** The `limit` best hits: highest score first, then by document id and position (as PostgreSQL orders uuids and integers). */
function topHits<T extends { document: { id: string }; position: number; score: number }>(
  hits: T[],
  limit: number,
): T[] {
  const before = (a: T, b: T) =>
    a.score !== b.score
      ? a.score > b.score
      : a.document.id !== b.document.id
        ? a.document.id < b.document.id
        : a.position < b.position;
  const best: T[] = [];
  for (const hit of hits) {
    if (best.length === limit && !before(hit, best[limit - 1] as T)) continue;
    let at = best.length;
    while (at > 0 && before(hit, best[at - 1] as T)) at -= 1;
    best.splice(at, 0, hit);
    if (best.length > limit) best.pop();
  }
  return best;
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
  const reads = knowledgeBaseSearchReads(db);
  const settings = await loadEmbeddingSettings(reads, organizationId);
  if (!settings) return { mode: 'full_text', results: await rankFullText(reads, organizationId, request) };
  const candidates = Math.max(FUSION_CANDIDATES, request.topK);
  // The query is embedded while full text ranks: the endpoint's answer is most of a search's time.
  const [textual, embedded, query] = await Promise.all([
    rankFullText(reads, organizationId, { ...request, topK: candidates }),
    reads.embeddedDocuments(organizationId, settings.model, request.documentUuids ?? null),
    embedTexts(outbound, organizationId, settings, [request.query]).then(
      ([vector]) => vector,
      () => undefined,
    ),
  ]);
  // Full text's ranking is total, so its best `topK` are the first of its candidates.
  if (!query) return { mode: 'full_text', results: textual.slice(0, request.topK) };
  const similar = await vectorSearch(
    reads,
    embedded.map((document) => ({ id: document.id, completedAt: document.completed_at })),
    query,
    candidates,
  );
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
  const rows = await reads.completedChunksAt(
    organizationId,
    best.map((hit) => hit.documentId),
    best.map((hit) => hit.position),
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
