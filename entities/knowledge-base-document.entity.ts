import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type KnowledgeBaseFileType = 'pdf' | 'docx' | 'txt' | 'markdown' | 'json';
export type KnowledgeBaseDocumentStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type RetrievalMode = 'chunked' | 'full_document';

/** An organization's document: agents answer from its chunks (or its whole text) once it is completed. */
@Entity('knowledge_base_documents')
export class KnowledgeBaseDocument {
  /** The `document_uuid` of the interface. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  fileName: string;

  @Column({ type: 'text' })
  fileType: KnowledgeBaseFileType;

  @Column({ type: 'bigint' })
  sizeBytes: string;

  /** Hex SHA-256 of the file: the same file twice in one organization is refused. */
  @Column({ type: 'text' })
  sha256: string;

  /** The PostgreSQL text search configuration its chunks are indexed with (`english`, `simple`, ...). */
  @Column({ type: 'text' })
  language: string;

  @Column({ type: 'text' })
  retrievalMode: RetrievalMode;

  @Column({ type: 'text', default: 'pending' })
  status: KnowledgeBaseDocumentStatus;

  @Column({ type: 'text', nullable: true })
  failureReason: string | null;

  @Column({ type: 'integer', default: 0 })
  progressPercent: number;

  @Column({ type: 'integer', nullable: true })
  pageCount: number | null;

  @Column({ type: 'integer', nullable: true })
  chunkCount: number | null;

  @Column({ type: 'integer', nullable: true })
  tokenCount: number | null;

  /** The extracted text, what a `full_document` document gives the model; read only when needed. */
  @Column({ type: 'text', nullable: true, select: false })
  fullText: string | null;

  /** The embeddings model its chunks' vectors were made with; null: searched by full text only. */
  @Column({ type: 'text', nullable: true })
  embeddingModel: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
