import { DOCUMENT_STATUSES, FILE_TYPES, RETRIEVAL_MODES } from '../../domain/knowledge-base/types';
import { SEARCH_LANGUAGES } from '../../domain/knowledge-base/file-types';
import { TEXT_LIMITS } from '../../domain/limits';
import { SEARCH_MODES } from '../../domain/knowledge-base/search';
import { z } from '../zod';
import { DateTimeString, name } from './common';

const EXAMPLE_UUID = '5b7c1f0e-2a4d-4e8b-9c3f-1d2e3f4a5b6c';
const EXAMPLE_TIME = '2026-01-05T10:00:00.000Z';

export const DocumentUploadQuery = z.object({
  file_name: name(255).optional().openapi({
    description:
      'Name to keep, whose extension gives the type (.pdf, .docx, .txt, .md, .json); multipart uploads default to the part’s filename.',
  }),
  retrieval_mode: z.enum(RETRIEVAL_MODES).default('chunked').openapi({
    description:
      '`chunked`: the agent retrieves the best passages; `full_document`: the whole text is given to the model when it retrieves.',
  }),
  language: z.enum(SEARCH_LANGUAGES).default('english').openapi({
    description: 'The PostgreSQL text search configuration its text is indexed and searched with.',
  }),
});

/** The file as the `file` field of a form. */
export const DocumentMultipartBody = z
  .object({
    file: z.string().openapi({ format: 'binary', description: 'The document: PDF, DOCX, TXT, Markdown or JSON' }),
  })
  .openapi('DocumentMultipartBody', { example: { file: '# Opening hours\n\nWe open at 9 am on weekdays.\n' } });

const EXAMPLE_DOCUMENT = {
  document_uuid: EXAMPLE_UUID,
  file_name: 'handbook.pdf',
  file_type: 'pdf',
  size_bytes: 48213,
  sha256: 'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6',
  language: 'english',
  retrieval_mode: 'chunked',
  status: 'completed',
  failure_reason: null,
  progress_percent: 100,
  page_count: 12,
  chunk_count: 41,
  token_count: 12873,
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
  completed_at: EXAMPLE_TIME,
};

export const DocumentResponse = z
  .object({
    document_uuid: z.uuid(),
    file_name: z.string(),
    file_type: z.enum(FILE_TYPES),
    size_bytes: z.number().int(),
    sha256: z.string().openapi({ description: 'Hex SHA-256 of the file' }),
    language: z.string(),
    retrieval_mode: z.enum(RETRIEVAL_MODES),
    status: z.enum(DOCUMENT_STATUSES).openapi({
      description: '`pending` → `processing` → `completed` (searchable) or `failed` (see `failure_reason`)',
    }),
    failure_reason: z.string().nullable(),
    progress_percent: z.number().int().min(0).max(100),
    page_count: z.number().int().nullable().openapi({ description: 'PDF pages, once processed' }),
    chunk_count: z.number().int().nullable(),
    token_count: z.number().int().nullable(),
    created_at: DateTimeString,
    updated_at: DateTimeString,
    completed_at: DateTimeString.nullable(),
  })
  .openapi('KnowledgeBaseDocument', { example: EXAMPLE_DOCUMENT });

export const DocumentList = z
  .object({ documents: z.array(DocumentResponse) })
  .openapi('KnowledgeBaseDocumentList', { description: 'Newest first.', example: { documents: [EXAMPLE_DOCUMENT] } });

export const DocumentParams = z.object({ document_uuid: z.uuid().openapi({ example: EXAMPLE_UUID }) });

export const DocumentListQuery = z.object({ status: z.enum(DOCUMENT_STATUSES).optional() });

export const SearchRequest = z
  .object({
    query: z.string().trim().min(1).max(2000),
    document_uuids: z
      .array(z.uuid())
      .max(100)
      .optional()
      .openapi({ description: "Only these documents; default: all of the organization's completed documents." }),
    top_k: z.number().int().min(1).max(50).default(5),
  })
  .openapi('KnowledgeBaseSearchRequest', {
    example: { query: 'How long do refunds take?', document_uuids: [EXAMPLE_UUID], top_k: 3 },
  });

const SearchHit = z.object({
  document_uuid: z.uuid(),
  file_name: z.string(),
  position: z.number().int().openapi({ description: "The chunk's number in its document, from 0" }),
  heading: z.string().openapi({ description: 'The headings above the passage, outermost first' }),
  content: z.string(),
  page: z.number().int().nullable(),
  score: z.number().openapi({ description: 'Higher is better; comparable within one search' }),
});

export const SearchResponse = z
  .object({
    mode: z.enum(SEARCH_MODES).openapi({
      description:
        '`full_text` without an embeddings endpoint (or when it failed to embed the query); `hybrid`: full text ' +
        'and vector similarity combined by reciprocal rank fusion',
    }),
    results: z.array(SearchHit),
  })
  .openapi('KnowledgeBaseSearchResponse', {
    example: {
      mode: 'full_text',
      results: [
        {
          document_uuid: EXAMPLE_UUID,
          file_name: 'handbook.pdf',
          position: 7,
          heading: 'Returns > Refunds',
          content: 'Refunds are issued within 14 days of the return reaching our warehouse.',
          page: 3,
          score: 0.42,
        },
      ],
    },
  });

const EXAMPLE_EMBEDDINGS = {
  base_url: 'https://api.openai.com/v1',
  model: 'text-embedding-3-small',
  credential_uuid: '0d6f4b8a-3c2e-4f1a-9b7d-5e8c2a1f4b3d',
  batch_size: 64,
};

export const EmbeddingSettingsRequest = z
  .object({
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(TEXT_LIMITS.url)
      .openapi({
        description:
          'An OpenAI-compatible API up to its version path; chunks and queries are sent to `<base_url>/embeddings`. ' +
          'A private, loopback or metadata address is refused (422) unless the service allows private webhooks.',
      }),
    model: z.string().trim().min(1).max(200).openapi({ description: 'The `model` sent with every request' }),
    credential_uuid: z.uuid().nullable().optional().openapi({
      description:
        'A credential of the organization whose headers authenticate the requests; null: none (a local server)',
    }),
    batch_size: z
      .number()
      .int()
      .min(1)
      .max(2048)
      .default(64)
      .openapi({ description: 'Chunks per request while a document is processed' }),
  })
  .openapi('KnowledgeBaseEmbeddingSettingsRequest', { example: EXAMPLE_EMBEDDINGS });

export const EmbeddingSettingsResponse = z
  .object({
    base_url: z.string(),
    model: z.string(),
    credential_uuid: z.uuid().nullable(),
    batch_size: z.number().int(),
    updated_at: DateTimeString,
  })
  .openapi('KnowledgeBaseEmbeddingSettings', { example: { ...EXAMPLE_EMBEDDINGS, updated_at: EXAMPLE_TIME } });
