import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations' knowledge-base documents, the original files, and the searchable chunks made of
 * them: each chunk's `search_vector` is built with its document's text search configuration (its
 * language) and indexed with GIN; `embedding` holds its vector when an embeddings endpoint is used.
 */
export class KnowledgeBase1795000007400 implements MigrationInterface {
  name = 'KnowledgeBase1795000007400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_base_documents (
                     id uuid PRIMARY KEY,
                     organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
                     file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 255),
                     file_type text NOT NULL CHECK (file_type IN ('pdf', 'docx', 'txt', 'markdown', 'json')),
                     size_bytes bigint NOT NULL CHECK (size_bytes > 0),
                     sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
                     language text NOT NULL,
                     retrieval_mode text NOT NULL CHECK (retrieval_mode IN ('chunked', 'full_document')),
                     status text NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
                     failure_reason text,
                     progress_percent integer NOT NULL DEFAULT 0 CHECK (progress_percent BETWEEN 0 AND 100),
                     page_count integer,
                     chunk_count integer,
                     token_count integer,
                     full_text text,
                     created_at timestamptz NOT NULL DEFAULT now(),
                     updated_at timestamptz NOT NULL DEFAULT now(),
                     completed_at timestamptz,
                     CONSTRAINT knowledge_base_documents_same_file UNIQUE (organization_id, sha256))`);
    await q.query(
      `CREATE INDEX knowledge_base_documents_organization_created
         ON knowledge_base_documents (organization_id, created_at DESC, id)`,
    );
    // The original bytes, read by the worker that processes the document; kept apart so rows listed stay small.
    await q.query(`CREATE TABLE knowledge_base_files (
                     document_id uuid PRIMARY KEY REFERENCES knowledge_base_documents (id) ON DELETE CASCADE,
                     content bytea NOT NULL)`);
    await q.query(`CREATE TABLE knowledge_base_chunks (
                     document_id uuid NOT NULL REFERENCES knowledge_base_documents (id) ON DELETE CASCADE,
                     position integer NOT NULL CHECK (position >= 0),
                     organization_id integer NOT NULL,
                     heading text NOT NULL DEFAULT '',
                     content text NOT NULL,
                     page integer,
                     token_count integer NOT NULL,
                     search_vector tsvector NOT NULL,
                     embedding float4[],
                     PRIMARY KEY (document_id, position))`);
    await q.query(`CREATE INDEX knowledge_base_chunks_search ON knowledge_base_chunks USING GIN (search_vector)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE knowledge_base_chunks`);
    await q.query(`DROP TABLE knowledge_base_files`);
    await q.query(`DROP TABLE knowledge_base_documents`);
  }
}
