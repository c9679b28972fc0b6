import { EntityManager, type DataSource } from 'typeorm';
import { knowledgeBaseStatements, type EmbeddingSettingsRow } from './knowledge-base.repository';

/** A completed document a full-text search reads, with the query's words as its language stems them. */
export interface SearchedDocumentRow {
  id: string;
  file_name: string;
  completed_at: string;
  /** The query's words as this document's language stems them, stop words left out. */
  lexemes: string[];
}

/** A chunk a search answers. */
export interface ChunkRow {
  document_id: string;
  position: number;
  heading: string;
  content: string;
  page: number | null;
}

/** A chunk found by pgvector's ranking. */
export interface SimilarChunkRow {
  document_id: string;
  position: number;
  similarity: number;
}

const pgvectorInstalled = new WeakMap<object, Promise<boolean>>();

/**
 * The reads of a knowledge-base search and of a call's retrieval: only the organization's completed
 * documents are searched. Their SQL is measured by `npm run bench:knowledge-base`.
 */
export function knowledgeBaseSearchStatements(manager: EntityManager) {
  const documents = knowledgeBaseStatements(manager);
  return {
    /** The organization's embeddings endpoint; null when it has none. */
    embeddingSettingsOf(organizationId: number): Promise<EmbeddingSettingsRow | null> {
      return documents.embeddingSettingsOf(organizationId);
    },

    /** The organization's completed documents (of `documentIds` when given), each with the query's lexemes in its language. */
    searchedDocuments(
      organizationId: number,
      documentIds: readonly string[] | null,
      query: string,
    ): Promise<SearchedDocumentRow[]> {
      return manager.query<SearchedDocumentRow[]>(
        `SELECT id, file_name, completed_at::text AS completed_at,
            tsvector_to_array(to_tsvector(language::regconfig, $3)) AS lexemes
       FROM knowledge_base_documents
      WHERE organization_id = $1 AND status = 'completed'
        AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`,
        [organizationId, documentIds, query],
      );
    },

    /** A document's chunks' search vectors as text, in order. */
    chunkSearchVectors(documentId: string): Promise<{ position: number; vector: string }[]> {
      return manager.query<{ position: number; vector: string }[]>(
        `SELECT position, search_vector::text AS vector FROM knowledge_base_chunks
          WHERE document_id = $1 ORDER BY position`,
        [documentId],
      );
    },

    /** The chunks at those (document, position) pairs. */
    chunksAt(documentIds: string[], positions: number[]): Promise<ChunkRow[]> {
      return manager.query<ChunkRow[]>(
        `SELECT c.document_id, c.position, c.heading, c.content, c.page
       FROM unnest($1::uuid[], $2::int[]) AS wanted (document_id, position)
       JOIN knowledge_base_chunks c ON c.document_id = wanted.document_id AND c.position = wanted.position`,
        [documentIds, positions],
      );
    },

    /** The chunks at those (document, position) pairs of the organization's documents still completed, with their file names. */
    completedChunksAt(
      organizationId: number,
      documentIds: string[],
      positions: number[],
    ): Promise<(ChunkRow & { file_name: string })[]> {
      return manager.query<(ChunkRow & { file_name: string })[]>(
        `SELECT c.document_id, d.file_name, c.position, c.heading, c.content, c.page
       FROM unnest($2::uuid[], $3::int[]) AS wanted (document_id, position)
       JOIN knowledge_base_chunks c ON c.document_id = wanted.document_id AND c.position = wanted.position
       JOIN knowledge_base_documents d ON d.id = c.document_id
      WHERE d.organization_id = $1 AND d.status = 'completed'`,
        [organizationId, documentIds, positions],
      );
    },

    /** The organization's completed documents (of `documentIds` when given) embedded with `model`. */
    embeddedDocuments(
      organizationId: number,
      model: string,
      documentIds: readonly string[] | null,
    ): Promise<{ id: string; completed_at: string }[]> {
      return manager.query<{ id: string; completed_at: string }[]>(
        `SELECT id, completed_at::text AS completed_at FROM knowledge_base_documents
        WHERE organization_id = $1 AND status = 'completed' AND embedding_model = $2
          AND ($3::uuid[] IS NULL OR id = ANY($3::uuid[]))`,
        [organizationId, model, documentIds],
      );
    },

    /** A document's embedded chunks' vectors in PostgreSQL's binary float4[] form, in order. */
    chunkVectors(documentId: string): Promise<{ position: number; vector: Buffer }[]> {
      return manager.query<{ position: number; vector: Buffer }[]>(
        `SELECT position, array_send(embedding) AS vector FROM knowledge_base_chunks
      WHERE document_id = $1 AND embedding IS NOT NULL ORDER BY position`,
        [documentId],
      );
    },

    /** pgvector's exact cosine ranking of the documents' chunks of the query's dimensions (`query` as a vector literal). */
    pgvectorRanking(
      documentIds: readonly string[],
      query: string,
      dimensions: number,
      limit: number,
    ): Promise<SimilarChunkRow[]> {
      return manager.query<SimilarChunkRow[]>(
        `SELECT document_id, position, (1 - (embedding::vector <=> $2::vector))::float8 AS similarity
       FROM knowledge_base_chunks
      WHERE document_id = ANY($1::uuid[]) AND embedding IS NOT NULL AND array_length(embedding, 1) = $3
      ORDER BY embedding::vector <=> $2::vector
      LIMIT $4`,
        [documentIds, query, dimensions, limit],
      );
    },

    /** Whether the database has pgvector installed (checked once per connection pool). */
    hasPgvector(): Promise<boolean> {
      const key = manager.connection;
      let known = pgvectorInstalled.get(key);
      if (!known) {
        known = manager
          .query<{ installed: boolean }[]>(
            `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed`,
          )
          .then(([row]) => row?.installed === true);
        pgvectorInstalled.set(key, known);
      }
      return known;
    },

    /** The organization's completed documents among `documentIds`, with how a retrieval gives them. */
    completedDocumentsAmong(
      organizationId: number,
      documentIds: string[],
    ): Promise<{ id: string; file_name: string; retrieval_mode: string }[]> {
      return manager.query<{ id: string; file_name: string; retrieval_mode: string }[]>(
        `SELECT id, file_name, retrieval_mode FROM knowledge_base_documents
        WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND status = 'completed'`,
        [organizationId, documentIds],
      );
    },

    /** The documents' text, up to `maxChars` each, by file name. */
    fullTexts(
      organizationId: number,
      documentIds: string[],
      maxChars: number,
    ): Promise<{ file_name: string; text: string; truncated: boolean }[]> {
      return manager.query<{ file_name: string; text: string; truncated: boolean }[]>(
        `SELECT file_name, left(full_text, $3) AS text, length(full_text) > $3 AS truncated
               FROM knowledge_base_documents WHERE organization_id = $1 AND id = ANY($2::uuid[])
              ORDER BY file_name`,
        [organizationId, documentIds, maxChars],
      );
    },
  };
}

export type KnowledgeBaseSearchStatements = ReturnType<typeof knowledgeBaseSearchStatements>;

/** The search's reads over a DataSource or a transaction's manager. */
export const knowledgeBaseSearchReads = (db: DataSource | EntityManager): KnowledgeBaseSearchStatements =>
  knowledgeBaseSearchStatements(db instanceof EntityManager ? db : db.manager);
