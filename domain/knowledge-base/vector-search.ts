import type { KnowledgeBaseSearchStatements } from '../../entities/repositories/knowledge-base-search.repository';
import { CompletedDocumentCache, type CompletedDocument } from './completed-document-cache';

/** A chunk found by its vector. */
export interface VectorHit {
  documentId: string;
  position: number;
  /** Cosine similarity, -1 to 1. */
  similarity: number;
}

/** A completed document's vectors, one row of `dimensions` floats per embedded chunk. */
interface DocumentVectors {
  positions: Int32Array;
  dimensions: number;
  matrix: Float32Array;
}

/** The most floats kept in memory for searches without pgvector (128 MB); the least recently used documents go first. */
const MAX_CACHED_FLOATS = 32 * 1024 * 1024;

/** PostgreSQL's binary form of a one-dimensional float4[] (`array_send`): a header, then each value's length and value. */
function parseFloat4Array(bytes: Buffer, into: Float32Array, offset: number): number {
  const dimensions = bytes.readInt32BE(0);
  if (dimensions !== 1) return 0;
  const length = bytes.readInt32BE(12);
  let at = 20;
  for (let index = 0; index < length; index += 1) {
    into[offset + index] = bytes.readFloatBE(at + 4);
    at += 8;
  }
  return length;
}

async function loadVectors(reads: KnowledgeBaseSearchStatements, documentId: string): Promise<DocumentVectors> {
  const rows = await reads.chunkVectors(documentId);
  const dimensions = rows[0] ? rows[0].vector.readInt32BE(12) : 0;
  const matrix = new Float32Array(rows.length * dimensions);
  const positions = new Int32Array(rows.length);
  rows.forEach((row, index) => {
    positions[index] = row.position;
    parseFloat4Array(row.vector, matrix, index * dimensions);
  });
  return { positions, dimensions, matrix };
}

/**
 * Exact cosine ranking over the chunks of a search's documents, for servers without pgvector.
 * A completed document's vectors are read once into one matrix and kept (up to MAX_CACHED_FLOATS,
 * keyed by when the document completed); which documents a search may see is decided by the
 * caller's query each time, so a deleted document's cached vectors are never searched.
 */
export class InMemoryVectorIndex {
  private readonly documents = new CompletedDocumentCache<KnowledgeBaseSearchStatements, DocumentVectors>(
    MAX_CACHED_FLOATS,
    (vectors) => vectors.matrix.length,
    loadVectors,
  );

  async search(
    reads: KnowledgeBaseSearchStatements,
    documents: readonly CompletedDocument[],
    query: Float32Array,
    limit: number,
  ): Promise<VectorHit[]> {
    const loaded = await Promise.all(documents.map((document) => this.documents.get(reads, document)));
    const best: VectorHit[] = [];
    loaded.forEach((vectors, documentIndex) => {
      if (vectors.dimensions !== query.length) return;
      const { matrix, positions, dimensions } = vectors;
      for (let row = 0; row < positions.length; row += 1) {
        const dot = dotProduct(matrix, row * dimensions, query);
        if (best.length === limit && dot <= (best[limit - 1] as VectorHit).similarity) continue;
        const hit = {
          documentId: (documents[documentIndex] as CompletedDocument).id,
          position: positions[row] as number,
          similarity: dot,
        };
        let at = best.length;
        while (at > 0 && (best[at - 1] as VectorHit).similarity < dot) at -= 1;
        best.splice(at, 0, hit);
        if (best.length > limit) best.pop();
      }
    });
    return best;
  }
}

/**
 * The dot product of `query` with the row of `matrix` starting at `base`. Eight running sums let
 * the CPU overlap the multiply-adds (a quarter less time than one sum over 1,536 dimensions).
 */
function dotProduct(matrix: Float32Array, base: number, query: Float32Array): number {
  const length = query.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let index = 0;
  for (; index + 7 < length; index += 8) {
    const at = base + index;
    s0 += (matrix[at] as number) * (query[index] as number);
    s1 += (matrix[at + 1] as number) * (query[index + 1] as number);
    s2 += (matrix[at + 2] as number) * (query[index + 2] as number);
    s3 += (matrix[at + 3] as number) * (query[index + 3] as number);
    s4 += (matrix[at + 4] as number) * (query[index + 4] as number);
    s5 += (matrix[at + 5] as number) * (query[index + 5] as number);
    s6 += (matrix[at + 6] as number) * (query[index + 6] as number);
    s7 += (matrix[at + 7] as number) * (query[index + 7] as number);
  }
  for (; index < length; index += 1) s0 += (matrix[base + index] as number) * (query[index] as number);
  return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

/** pgvector's exact cosine ranking (no index: a search's documents are few, and vectors' dimensions vary by model). */
async function pgvectorSearch(
  reads: KnowledgeBaseSearchStatements,
  documentIds: readonly string[],
  query: Float32Array,
  limit: number,
): Promise<VectorHit[]> {
  const rows = await reads.pgvectorRanking(documentIds, `[${Array.from(query).join(',')}]`, query.length, limit);
  return rows.map((row) => ({
    documentId: row.document_id,
    position: row.position,
    similarity: Number(row.similarity),
  }));
}

const inMemory = new InMemoryVectorIndex();

/** The `limit` chunks of `documentIds` closest to `query` (normalized): pgvector's ranking when installed, else the same computed here. */
export async function vectorSearch(
  reads: KnowledgeBaseSearchStatements,
  documents: readonly CompletedDocument[],
  query: Float32Array,
  limit: number,
): Promise<VectorHit[]> {
  if (documents.length === 0) return [];
  return (await reads.hasPgvector())
    ? pgvectorSearch(
        reads,
        documents.map((document) => document.id),
        query,
        limit,
      )
    : inMemory.search(reads, documents, query, limit);
}
