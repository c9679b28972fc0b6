import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { KnowledgeBaseDocument, type KnowledgeBaseFileType } from '../knowledge-base-document.entity';
import { findCredential } from './credential.repository';
import { repositoryOver } from './repository';

/** A chunk as it is written: where it sits in the document, its heading, text, page and tokens. */
export interface ChunkToWrite {
  position: number;
  heading: string;
  content: string;
  page: number | null;
  tokenCount: number;
}

/** A document being processed, as its chunks are written: its organization and text search language. */
export interface DocumentBeingIndexed {
  organization_id: number;
  language: string;
}

/** An organization's embeddings endpoint as stored. */
export interface EmbeddingSettingsRow {
  base_url: string;
  model: string;
  credential_uuid: string | null;
  batch_size: number;
  updated_at: Date;
}

export interface EmbeddingSettingsToStore {
  baseUrl: string;
  model: string;
  credentialUuid: string | null;
  batchSize: number;
}

const SELECT_SETTINGS = `SELECT base_url, model, credential_uuid, batch_size, updated_at
                  FROM knowledge_base_embedding_settings WHERE organization_id = $1`;

/**
 * The reads and writes of knowledge-base documents: their files, their processing into chunks and
 * vectors, and the organization's embeddings endpoint.
 */
export function knowledgeBaseStatements(manager: EntityManager) {
  const documents = manager.getRepository(KnowledgeBaseDocument);
  return {
    async insertDocument(fields: DeepPartial<KnowledgeBaseDocument>): Promise<void> {
      await documents.insert(documents.create(fields));
    },

    async insertFile(documentId: string, content: Buffer): Promise<void> {
      await manager.query('INSERT INTO knowledge_base_files (document_id, content) VALUES ($1, $2)', [
        documentId,
        content,
      ]);
    },

    findDocumentOrFail(id: string): Promise<KnowledgeBaseDocument> {
      return documents.findOneByOrFail({ id });
    },

    /** The organization's document with that id; null when it is missing or another organization's. */
    findOwnedDocument(organizationId: number, id: string): Promise<KnowledgeBaseDocument | null> {
      return documents.findOneBy({ organizationId, id });
    },

    /** The organization's document of that file; null when there is none. */
    findBySha256(organizationId: number, sha256: string): Promise<KnowledgeBaseDocument | null> {
      return documents.findOneBy({ organizationId, sha256 });
    },

    /** Newest first, of one status when asked. */
    listDocuments(
      organizationId: number,
      filter: { status?: KnowledgeBaseDocument['status'] },
    ): Promise<KnowledgeBaseDocument[]> {
      return documents.find({ where: { organizationId, ...filter }, order: { createdAt: 'DESC', id: 'ASC' } });
    },

    async markFailedToStart(id: string, failureReason: string): Promise<void> {
      await documents.update({ id }, { status: 'failed', failureReason });
    },

    /** Deletes the document; its file and chunks go with it. */
    async deleteOwnedDocument(organizationId: number, id: string): Promise<void> {
      await documents.delete({ organizationId, id });
    },

    /** `pending` → `processing`; false when the document is gone or already finished. */
    async beginProcessing(id: string): Promise<boolean> {
      // An UPDATE answers [rows, count].
      const [rows] = await manager.query<[unknown[], number]>(
        `UPDATE knowledge_base_documents
          SET status = 'processing', progress_percent = GREATEST(progress_percent, 5), updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'processing')
        RETURNING id`,
        [id],
      );
      return rows.length > 0;
    },

    /** Raises a processing document's progress (never lowers it). */
    async raiseProgress(id: string, percent: number): Promise<void> {
      await manager.query(
        `UPDATE knowledge_base_documents SET progress_percent = GREATEST(progress_percent, $2), updated_at = now()
        WHERE id = $1 AND status = 'processing'`,
        [id, percent],
      );
    },

    /** The document's file and its type; null when the document is gone. */
    async fileOf(id: string): Promise<{ file_type: KnowledgeBaseFileType; content: Buffer } | null> {
      const [file] = await manager.query<{ file_type: KnowledgeBaseFileType; content: Buffer }[]>(
        `SELECT d.file_type, f.content FROM knowledge_base_documents d
         JOIN knowledge_base_files f ON f.document_id = d.id
        WHERE d.id = $1`,
        [id],
      );
      return file ?? null;
    },

    /** The document, locked, while it is processing; null otherwise. */
    async lockProcessingDocument(id: string): Promise<DocumentBeingIndexed | null> {
      const [document] = await manager.query<DocumentBeingIndexed[]>(
        `SELECT organization_id, language FROM knowledge_base_documents WHERE id = $1 AND status = 'processing' FOR UPDATE`,
        [id],
      );
      return document ?? null;
    },

    async deleteChunks(documentId: string): Promise<void> {
      await manager.query('DELETE FROM knowledge_base_chunks WHERE document_id = $1', [documentId]);
    },

    /** Writes the chunks in one statement, each with its search vector in the document's language. */
    async insertChunks(documentId: string, document: DocumentBeingIndexed, chunks: ChunkToWrite[]): Promise<void> {
      await manager.query(
        `INSERT INTO knowledge_base_chunks
       (document_id, position, organization_id, heading, content, page, token_count, search_vector)
     SELECT $1, c.position, $2, c.heading, c.content, c.page, c.token_count,
            setweight(to_tsvector($3::regconfig, c.heading), 'A') || to_tsvector($3::regconfig, c.content)
       FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[])
            AS c (position, heading, content, page, token_count)`,
        [
          documentId,
          document.organization_id,
          document.language,
          chunks.map((chunk) => chunk.position),
          chunks.map((chunk) => chunk.heading),
          chunks.map((chunk) => chunk.content),
          chunks.map((chunk) => chunk.page),
          chunks.map((chunk) => chunk.tokenCount),
        ],
      );
    },

    /** The document's text and counts, once its chunks are written. */
    async recordIndexed(
      id: string,
      indexed: { fullText: string; pageCount: number | null; chunkCount: number; tokenCount: number },
    ): Promise<void> {
      await manager.query(
        `UPDATE knowledge_base_documents
            SET full_text = $2, page_count = $3, chunk_count = $4, token_count = $5,
                progress_percent = GREATEST(progress_percent, 80), updated_at = now()
          WHERE id = $1`,
        [id, indexed.fullText, indexed.pageCount, indexed.chunkCount, indexed.tokenCount],
      );
    },

    /** The processing document's organization and the model its vectors were made with; null otherwise. */
    async documentToEmbed(id: string): Promise<{ organization_id: number; embedding_model: string | null } | null> {
      const [document] = await manager.query<{ organization_id: number; embedding_model: string | null }[]>(
        `SELECT organization_id, embedding_model FROM knowledge_base_documents WHERE id = $1 AND status = 'processing'`,
        [id],
      );
      return document ?? null;
    },

    async clearEmbeddings(documentId: string): Promise<void> {
      await manager.query('UPDATE knowledge_base_chunks SET embedding = NULL WHERE document_id = $1', [documentId]);
    },

    async setEmbeddingModel(id: string, model: string): Promise<void> {
      await manager.query('UPDATE knowledge_base_documents SET embedding_model = $2 WHERE id = $1', [id, model]);
    },

    /** The document's chunks without a vector, in order. */
    chunksToEmbed(documentId: string): Promise<{ position: number; heading: string; content: string }[]> {
      return manager.query<{ position: number; heading: string; content: string }[]>(
        `SELECT position, heading, content FROM knowledge_base_chunks
        WHERE document_id = $1 AND embedding IS NULL ORDER BY position`,
        [documentId],
      );
    },

    /** Writes the vectors of the chunks at `positions` (as float4[] literals), in one statement. */
    async storeEmbeddings(documentId: string, positions: number[], vectors: string[]): Promise<void> {
      await manager.query(
        `UPDATE knowledge_base_chunks c SET embedding = v.embedding::float4[]
           FROM unnest($2::int[], $3::text[]) AS v (position, embedding)
          WHERE c.document_id = $1 AND c.position = v.position`,
        [documentId, positions, vectors],
      );
    },

    /** `processing` → `completed`. */
    async complete(id: string): Promise<void> {
      await manager.query(
        `UPDATE knowledge_base_documents
          SET status = 'completed', progress_percent = 100, completed_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'processing'`,
        [id],
      );
    },

    /** `pending` or `processing` → `failed`, with the reason. */
    async markFailed(id: string, reason: string): Promise<void> {
      await manager.query(
        `UPDATE knowledge_base_documents SET status = 'failed', failure_reason = $2, updated_at = now()
          WHERE id = $1 AND status IN ('pending', 'processing')`,
        [id, reason],
      );
    },

    /** The organization's embeddings endpoint; null when it has none. */
    async embeddingSettingsOf(organizationId: number): Promise<EmbeddingSettingsRow | null> {
      const [row] = await manager.query<EmbeddingSettingsRow[]>(SELECT_SETTINGS, [organizationId]);
      return row ?? null;
    },

    /** Sets or replaces the organization's endpoint; answers it as stored. */
    async putEmbeddingSettings(
      organizationId: number,
      settings: EmbeddingSettingsToStore,
    ): Promise<EmbeddingSettingsRow> {
      const [row] = await manager.query<EmbeddingSettingsRow[]>(
        `INSERT INTO knowledge_base_embedding_settings (organization_id, base_url, model, credential_uuid, batch_size)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id) DO UPDATE
         SET base_url = EXCLUDED.base_url, model = EXCLUDED.model, credential_uuid = EXCLUDED.credential_uuid,
             batch_size = EXCLUDED.batch_size, updated_at = now()
       RETURNING base_url, model, credential_uuid, batch_size, updated_at`,
        [organizationId, settings.baseUrl, settings.model, settings.credentialUuid, settings.batchSize],
      );
      return row as EmbeddingSettingsRow;
    },

    /** Removes the organization's endpoint; answers what it was, or null when none was set. */
    async deleteEmbeddingSettings(organizationId: number): Promise<EmbeddingSettingsRow | null> {
      const [rows] = await manager.query<[EmbeddingSettingsRow[], number]>(
        `DELETE FROM knowledge_base_embedding_settings WHERE organization_id = $1
       RETURNING base_url, model, credential_uuid, batch_size, updated_at`,
        [organizationId],
      );
      return rows[0] ?? null;
    },

    /** Whether the organization has a credential with that uuid (for the endpoint's authentication). */
    async credentialExists(organizationId: number, uuid: string): Promise<boolean> {
      return (await findCredential(manager, organizationId, uuid)) !== null;
    },
  };
}

export type KnowledgeBaseStatements = ReturnType<typeof knowledgeBaseStatements>;

export const createKnowledgeBaseRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, knowledgeBaseStatements);

export type KnowledgeBaseRepository = ReturnType<typeof createKnowledgeBaseRepository>;
