import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { KnowledgeBaseDocument } from '../../entities';
import {
  createKnowledgeBaseRepository,
  type KnowledgeBaseRepository,
} from '../../entities/repositories/knowledge-base.repository';
import { isUniqueViolation } from '../../entities/db-errors';
import type { Config } from '../../platform/config';
import { ConflictError, NotFoundError } from '../errors';
import { Quotas } from '../quotas';
import { cancelDocumentWorkflow, startDocumentWorkflow } from './document-workflow';
import { checkSignature, type SearchLanguage } from './file-types';
import type { DocumentView, KnowledgeBaseFileType, RetrievalMode } from './types';

const SAME_FILE = 'knowledge_base_documents_same_file';

export const documentNotFound = (uuid: string) => new NotFoundError(`Document ${uuid} not found`);

export const documentView = (row: KnowledgeBaseDocument): DocumentView => ({
  document_uuid: row.id,
  file_name: row.fileName,
  file_type: row.fileType,
  size_bytes: Number(row.sizeBytes),
  sha256: row.sha256,
  language: row.language,
  retrieval_mode: row.retrievalMode,
  status: row.status,
  failure_reason: row.failureReason,
  progress_percent: row.progressPercent,
  page_count: row.pageCount,
  chunk_count: row.chunkCount,
  token_count: row.tokenCount,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  completed_at: row.completedAt?.toISOString() ?? null,
});

export interface NewDocument {
  fileName: string;
  fileType: KnowledgeBaseFileType;
  content: Buffer;
  sha256: string;
  retrievalMode: RetrievalMode;
  language: SearchLanguage;
}

export interface KnowledgeBaseDeps {
  dataSource: DataSource;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'> & ConstructorParameters<typeof Quotas>[0];
}

/** The organization's documents: stored with their file, processed by a workflow each, deleted with their chunks. */
export class KnowledgeBaseDocuments {
  private readonly quotas: Quotas;
  private readonly documents: KnowledgeBaseRepository;

  constructor(private readonly deps: KnowledgeBaseDeps) {
    this.quotas = new Quotas(deps.config);
    this.documents = createKnowledgeBaseRepository(deps.dataSource);
  }

  /**
   * Stores the document and its file in one transaction (the same file twice in an organization is
   * a conflict), then starts its processing. A start that fails leaves the document failed, saying so.
   */
  async create(organizationId: number, file: NewDocument): Promise<DocumentView> {
    checkSignature(file.fileType, file.content.subarray(0, 1024));
    const id = randomUUID();
    let row: KnowledgeBaseDocument;
    try {
      row = await this.documents.transaction(async (documents, manager) => {
        await documents.insertDocument({
          id,
          organizationId,
          fileName: file.fileName,
          fileType: file.fileType,
          sizeBytes: String(file.content.length),
          sha256: file.sha256,
          language: file.language,
          retrievalMode: file.retrievalMode,
        });
        await documents.insertFile(id, file.content);
        await this.quotas.claim(manager, 'knowledge_base_documents', organizationId);
        return documents.findDocumentOrFail(id);
      });
    } catch (error) {
      if (!isUniqueViolation(error, SAME_FILE)) throw error;
      const existing = await this.documents.findBySha256(organizationId, file.sha256);
      throw new ConflictError(
        `The same file (SHA-256 ${file.sha256}) is already in the knowledge base` +
          (existing ? ` as document ${existing.id}` : ''),
      );
    }
    try {
      await startDocumentWorkflow(this.deps.temporal, this.deps.config.TEMPORAL_TASK_QUEUE, row);
    } catch (error) {
      await this.documents.markFailedToStart(
        id,
        'Processing could not be started; delete the document and upload it again',
      );
      throw error;
    }
    return documentView(row);
  }

  async list(organizationId: number, filter: { status?: DocumentView['status'] }): Promise<DocumentView[]> {
    const rows = await this.documents.listDocuments(organizationId, filter);
    return rows.map(documentView);
  }

  async get(organizationId: number, uuid: string): Promise<DocumentView> {
    const row = await this.documents.findOwnedDocument(organizationId, uuid);
    if (!row) throw documentNotFound(uuid);
    return documentView(row);
  }

  /**
   * Deletes the document, its file and its chunks at once (never searched again), then stops its
   * processing if it still runs; a processing step that finds it gone ends quietly.
   */
  async remove(organizationId: number, uuid: string): Promise<DocumentView> {
    const row = await this.documents.findOwnedDocument(organizationId, uuid);
    if (!row) throw documentNotFound(uuid);
    await this.documents.deleteOwnedDocument(organizationId, uuid);
    if (row.status === 'pending' || row.status === 'processing') {
      await cancelDocumentWorkflow(this.deps.temporal, uuid).catch(() => undefined);
    }
    return documentView(row);
  }
}
