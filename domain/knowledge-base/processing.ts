import type { DataSource, EntityManager } from 'typeorm';
import type { KnowledgeBaseFileType } from '../../entities/knowledge-base-document.entity';
import { chunkBlocks, DEFAULT_CHUNKING, type TextChunk } from './chunking';
import { loadEmbeddingSettings } from './embedding-settings';
import type { EmbeddingSettings } from './embeddings';
import { extractText } from './extract-text';

/** Chunks written per INSERT statement. */
const INSERT_BATCH = 200;

/** What indexing a document produced. */
export interface IndexedDocument {
  /** The document was deleted meanwhile: nothing was written. */
  gone: boolean;
  chunkCount: number;
  pageCount: number | null;
}

/** What embedding a document's chunks did. */
export interface EmbeddedDocument {
  gone: boolean;
  /** Chunks embedded by this try (those an earlier try embedded are kept). */
  embedded: number;
  /** The model the vectors were made with; null when the organization has no embeddings endpoint. */
  model: string | null;
}

/** Embeds one batch of texts with the organization's endpoint, answering normalized vectors in order. */
export type EmbedBatch = (
  organizationId: number,
  settings: EmbeddingSettings,
  texts: string[],
) => Promise<Float32Array[]>;

/**
 * The steps of a document's processing, each one idempotent and each ending quietly when the
 * document was deleted meanwhile. Chunks are written while the document is `processing` and are
 * searched only once it is `completed`, so a document is never searchable half-indexed.
 */
export class DocumentProcessing {
  constructor(private readonly dataSource: DataSource) {}

  /** `pending` → `processing`; false when the document is gone or already finished. */
  async begin(documentUuid: string): Promise<boolean> {
    // An UPDATE answers [rows, count].
    const [rows] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE knowledge_base_documents
          SET status = 'processing', progress_percent = GREATEST(progress_percent, 5), updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'processing')
        RETURNING id`,
      [documentUuid],
    );
    return rows.length > 0;
  }

  async progress(documentUuid: string, percent: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE knowledge_base_documents SET progress_percent = GREATEST(progress_percent, $2), updated_at = now()
        WHERE id = $1 AND status = 'processing'`,
      [documentUuid, percent],
    );
  }

  /**
   * Extracts the file's text, cuts it into chunks and replaces the document's chunks with them in
   * one transaction, with the text and counts on the document. `onStage` reports each step done.
   */
  async index(documentUuid: string, onStage: (percent: number) => Promise<void>): Promise<IndexedDocument> {
    const [file] = await this.dataSource.query<{ file_type: KnowledgeBaseFileType; content: Buffer }[]>(
      `SELECT d.file_type, f.content FROM knowledge_base_documents d
         JOIN knowledge_base_files f ON f.document_id = d.id
        WHERE d.id = $1`,
      [documentUuid],
    );
    if (!file) return { gone: true, chunkCount: 0, pageCount: null };
    const extracted = await extractText(file.file_type, file.content);
    await onStage(40);
    const chunks = chunkBlocks(extracted.blocks, DEFAULT_CHUNKING);
    await onStage(60);
    const fullText = extracted.blocks.map((block) => block.text).join('\n\n');
    const tokenCount = chunks.reduce((sum, chunk) => sum + chunk.tokenCount, 0);
    const written = await this.dataSource.transaction(async (manager) => {
      const [document] = await manager.query<{ organization_id: number; language: string }[]>(
        `SELECT organization_id, language FROM knowledge_base_documents WHERE id = $1 AND status = 'processing' FOR UPDATE`,
        [documentUuid],
      );
      if (!document) return false;
      await manager.query('DELETE FROM knowledge_base_chunks WHERE document_id = $1', [documentUuid]);
      for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
        await insertChunks(manager, documentUuid, document, chunks.slice(start, start + INSERT_BATCH));
      }
      await manager.query(
        `UPDATE knowledge_base_documents
            SET full_text = $2, page_count = $3, chunk_count = $4, token_count = $5,
                progress_percent = GREATEST(progress_percent, 80), updated_at = now()
          WHERE id = $1`,
        [documentUuid, fullText, extracted.pageCount, chunks.length, tokenCount],
      );
      return true;
    });
    return { gone: !written, chunkCount: chunks.length, pageCount: extracted.pageCount };
  }

  /**
   * Embeds the chunks not embedded yet with the organization's endpoint, `batchSize` at a time,
   * each batch written as it comes back, so a retried step goes on where the last one stopped
   * (vectors of another model, set meanwhile, are dropped first). Nothing to do without an endpoint.
   */
  async embed(
    documentUuid: string,
    embedBatch: EmbedBatch,
    onProgress: (done: number, total: number) => Promise<void>,
  ): Promise<EmbeddedDocument> {
    const [document] = await this.dataSource.query<{ organization_id: number; embedding_model: string | null }[]>(
      `SELECT organization_id, embedding_model FROM knowledge_base_documents WHERE id = $1 AND status = 'processing'`,
      [documentUuid],
    );
    if (!document) return { gone: true, embedded: 0, model: null };
    const settings = await loadEmbeddingSettings(this.dataSource, document.organization_id);
    if (!settings) return { gone: false, embedded: 0, model: null };
    if (document.embedding_model !== settings.model) {
      await this.dataSource.transaction(async (manager) => {
        await manager.query('UPDATE knowledge_base_chunks SET embedding = NULL WHERE document_id = $1', [documentUuid]);
        await manager.query('UPDATE knowledge_base_documents SET embedding_model = $2 WHERE id = $1', [
          documentUuid,
          settings.model,
        ]);
      });
    }
    const pending = await this.dataSource.query<{ position: number; heading: string; content: string }[]>(
      `SELECT position, heading, content FROM knowledge_base_chunks
        WHERE document_id = $1 AND embedding IS NULL ORDER BY position`,
      [documentUuid],
    );
    for (let start = 0; start < pending.length; start += settings.batchSize) {
      const batch = pending.slice(start, start + settings.batchSize);
      const vectors = await embedBatch(
        document.organization_id,
        settings,
        batch.map((chunk) => (chunk.heading ? `${chunk.heading}\n${chunk.content}` : chunk.content)),
      );
      await this.dataSource.query(
        `UPDATE knowledge_base_chunks c SET embedding = v.embedding::float4[]
           FROM unnest($2::int[], $3::text[]) AS v (position, embedding)
          WHERE c.document_id = $1 AND c.position = v.position`,
        [
          documentUuid,
          batch.map((chunk) => chunk.position),
          vectors.map((vector) => `{${Array.from(vector).join(',')}}`),
        ],
      );
      await onProgress(start + batch.length, pending.length);
    }
    return { gone: false, embedded: pending.length, model: settings.model };
  }

  /** `processing` → `completed`: from this commit on its chunks are searched. */
  async complete(documentUuid: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE knowledge_base_documents
          SET status = 'completed', progress_percent = 100, completed_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'processing'`,
      [documentUuid],
    );
  }

  /** Failed, with the reason; its chunks are removed, so nothing of it is ever searched. */
  async fail(documentUuid: string, reason: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE knowledge_base_documents SET status = 'failed', failure_reason = $2, updated_at = now()
          WHERE id = $1 AND status IN ('pending', 'processing')`,
        [documentUuid, reason.slice(0, 2000)],
      );
      await manager.query('DELETE FROM knowledge_base_chunks WHERE document_id = $1', [documentUuid]);
    });
  }
}

async function insertChunks(
  manager: EntityManager,
  documentUuid: string,
  document: { organization_id: number; language: string },
  chunks: TextChunk[],
): Promise<void> {
  await manager.query(
    `INSERT INTO knowledge_base_chunks
       (document_id, position, organization_id, heading, content, page, token_count, search_vector)
     SELECT $1, c.position, $2, c.heading, c.content, c.page, c.token_count,
            setweight(to_tsvector($3::regconfig, c.heading), 'A') || to_tsvector($3::regconfig, c.content)
       FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[])
            AS c (position, heading, content, page, token_count)`,
    [
      documentUuid,
      document.organization_id,
      document.language,
      chunks.map((chunk) => chunk.position),
      chunks.map((chunk) => chunk.heading),
      chunks.map((chunk) => chunk.content),
      chunks.map((chunk) => chunk.page),
      chunks.map((chunk) => chunk.tokenCount),
    ],
  );
}
