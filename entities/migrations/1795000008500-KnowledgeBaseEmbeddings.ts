import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organization's embeddings endpoint for its knowledge base (OpenAI-compatible, its key a
 * credential), and on each document the model its chunks' vectors were made with. pgvector is
 * installed when the server offers it and the migrating role may install it; searches use it when
 * it is there and compute the same exact cosine ranking themselves when it is not.
 */
export class KnowledgeBaseEmbeddings1795000008500 implements MigrationInterface {
  name = 'KnowledgeBaseEmbeddings1795000008500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_base_embedding_settings (
                     organization_id integer PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
                     base_url text NOT NULL CHECK (base_url ~ '^https?://'),
                     model text NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
                     credential_uuid uuid,
                     batch_size integer NOT NULL CHECK (batch_size BETWEEN 1 AND 2048),
                     created_at timestamptz NOT NULL DEFAULT now(),
                     updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`ALTER TABLE knowledge_base_documents ADD COLUMN embedding_model text`);
    await q.query(`DO $$
                   BEGIN
                     IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')
                        AND (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
                       CREATE EXTENSION IF NOT EXISTS vector;
                     END IF;
                   END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE knowledge_base_documents DROP COLUMN embedding_model`);
    await q.query(`DROP TABLE knowledge_base_embedding_settings`);
  }
}
