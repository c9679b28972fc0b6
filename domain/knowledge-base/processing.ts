import type { DataSource } from 'typeorm';
import {
  createKnowledgeBaseRepository,
  type KnowledgeBaseRepository,
} from '../../entities/repositories/knowledge-base.repository';
import { chunkBlocks, DEFAULT_CHUNKING } from './chunking';
import { loadEmbeddingSettings } from './embedding-settings';
import type { EmbeddingSettings } from './embeddings';
import { extractText } from './extract-text';

/** Chunks written per INSERT statement. */
const INSERT_BATCH = 200;

/** Progress while the chunks are embedded: after the 80 % of indexing, up to 99 (100 is `completed`). */
const EMBEDDING_PROGRESS_FROM = 80;
const EMBEDDING_PROGRESS_SPAN = 19;

/** A document's progress once `done` of its `total` chunks to embed are embedded. */
export const embeddingProgress = (done: number, total: number): number =>
  EMBEDDING_PROGRESS_FROM + Math.floor((EMBEDDING_PROGRESS_SPAN * done) / total);

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
  private readonly documents: KnowledgeBaseRepository;

  constructor(dataSource: DataSource) {
    this.documents = createKnowledgeBaseRepository(dataSource);
  }

  /** `pending` → `processing`; false when the document is gone or already finished. */
  begin(documentUuid: string): Promise<boolean> {
    return this.documents.beginProcessing(documentUuid);
  }

  progress(documentUuid: string, percent: number): Promise<void> {
    return this.documents.raiseProgress(documentUuid, percent);
  }

  /**
   * Extracts the file's text, cuts it into chunks and replaces the document's chunks with them in
   * one transaction, with the text and counts on the document. `onStage` reports each step done.
   */
  async index(documentUuid: string, onStage: (percent: number) => Promise<void>): Promise<IndexedDocument> {
    const file = await this.documents.fileOf(documentUuid);
    if (!file) return { gone: true, chunkCount: 0, pageCount: null };
    const extracted = await extractText(file.file_type, file.content);
    await onStage(40);
    const chunks = chunkBlocks(extracted.blocks, DEFAULT_CHUNKING);
    await onStage(60);
    const fullText = extracted.blocks.map((block) => block.text).join('\n\n');
    const tokenCount = chunks.reduce((sum, chunk) => sum + chunk.tokenCount, 0);
    const written = await this.documents.transaction(async (documents) => {
      const document = await documents.lockProcessingDocument(documentUuid);
      if (!document) return false;
      await documents.deleteChunks(documentUuid);
      for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
        await documents.insertChunks(documentUuid, document, chunks.slice(start, start + INSERT_BATCH));
      }
      await documents.recordIndexed(documentUuid, {
        fullText,
        pageCount: extracted.pageCount,
        chunkCount: chunks.length,
        tokenCount,
      });
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
    const document = await this.documents.documentToEmbed(documentUuid);
    if (!document) return { gone: true, embedded: 0, model: null };
    const settings = await loadEmbeddingSettings(this.documents, document.organization_id);
    if (!settings) return { gone: false, embedded: 0, model: null };
    if (document.embedding_model !== settings.model) {
      await this.documents.transaction(async (documents) => {
        await documents.clearEmbeddings(documentUuid);
        await documents.setEmbeddingModel(documentUuid, settings.model);
      });
    }
    const pending = await this.documents.chunksToEmbed(documentUuid);
    for (let start = 0; start < pending.length; start += settings.batchSize) {
      const batch = pending.slice(start, start + settings.batchSize);
      const vectors = await embedBatch(
        document.organization_id,
        settings,
        batch.map((chunk) => (chunk.heading ? `${chunk.heading}\n${chunk.content}` : chunk.content)),
      );
      await this.documents.storeEmbeddings(
        documentUuid,
        batch.map((chunk) => chunk.position),
        vectors.map((vector) => `{${Array.from(vector).join(',')}}`),
      );
      await onProgress(start + batch.length, pending.length);
    }
    return { gone: false, embedded: pending.length, model: settings.model };
  }

  /** `processing` → `completed`: from this commit on its chunks are searched. */
  complete(documentUuid: string): Promise<void> {
    return this.documents.complete(documentUuid);
  }

  /** Failed, with the reason; its chunks are removed, so nothing of it is ever searched. */
  async fail(documentUuid: string, reason: string): Promise<void> {
    await this.documents.transaction(async (documents) => {
      await documents.markFailed(documentUuid, reason.slice(0, 2000));
      await documents.deleteChunks(documentUuid);
    });
  }
}
