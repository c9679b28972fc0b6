import type {
  KnowledgeBaseDocumentStatus,
  KnowledgeBaseFileType,
  RetrievalMode,
} from '../../entities/knowledge-base-document.entity';

export type { KnowledgeBaseDocumentStatus, KnowledgeBaseFileType, RetrievalMode };

export const RETRIEVAL_MODES = ['chunked', 'full_document'] as const;
export const DOCUMENT_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export const FILE_TYPES = ['pdf', 'docx', 'txt', 'markdown', 'json'] as const;

/** A document as the API answers it. */
export interface DocumentView {
  document_uuid: string;
  file_name: string;
  file_type: KnowledgeBaseFileType;
  size_bytes: number;
  sha256: string;
  language: string;
  retrieval_mode: RetrievalMode;
  status: KnowledgeBaseDocumentStatus;
  failure_reason: string | null;
  progress_percent: number;
  page_count: number | null;
  chunk_count: number | null;
  token_count: number | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** One passage found by a search. */
export interface SearchHit {
  document_uuid: string;
  file_name: string;
  /** The chunk's number in its document (0, 1, ...). */
  position: number;
  heading: string;
  content: string;
  page: number | null;
  /** Higher is better; comparable within one search only. */
  score: number;
}
