import { quotaBreach } from '../../domain/quotas';
import { KnowledgeBaseDocuments } from '../../domain/knowledge-base/documents';
import { fileTypeOf } from '../../domain/knowledge-base/file-types';
import { KnowledgeBaseEmbeddingSettings, NO_EMBEDDINGS } from '../../domain/knowledge-base/embedding-settings';
import { searchKnowledgeBase } from '../../domain/knowledge-base/search';
import { createToolRunnerDeps } from '../../domain/tools/tool-runner-deps';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { AppError } from '../errors';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  DocumentList,
  DocumentListQuery,
  DocumentMultipartBody,
  DocumentParams,
  DocumentResponse,
  DocumentUploadQuery,
  EmbeddingSettingsRequest,
  EmbeddingSettingsResponse,
  SearchRequest,
  SearchResponse,
} from '../schemas/knowledge-base';
import { documentUpload, readWithDigest } from '../uploads/document-body';
import type { ImportSlots } from '../uploads/import-slots';
import { MULTIPART_FILE_FIELD } from '../uploads/csv-body';
import { spoolUpload } from '../uploads/spool';

const BASE = '/knowledge-base/documents';
const EMBEDDINGS = '/knowledge-base/embeddings';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['knowledge-base'];
const NOT_FOUND = 'Document not found in this organization';
const UNSUPPORTED = 'Only .pdf, .docx, .txt, .md (or .markdown) and .json files are taken';

/** The organization's documents, which agent nodes answer from by `document_uuids`, and a search to test them. */
export function createKnowledgeBaseRoutes(deps: ApiDeps, importSlot: ImportSlots): Route[] {
  const { config, dataSource } = deps;
  const documents = new KnowledgeBaseDocuments(deps);
  const outbound = createToolRunnerDeps({ dataSource, secrets: loadSecrets(config), config });
  const embeddingSettings = new KnowledgeBaseEmbeddingSettings(dataSource, outbound);
  return [
    defineRoute(
      {
        method: 'post',
        path: BASE,
        operationId: 'uploadKnowledgeBaseDocument',
        summary: 'Upload a document to the knowledge base',
        description:
          `The file is the \`${MULTIPART_FILE_FIELD}\` field of a multipart form; its name's extension gives its type ` +
          '(PDF, DOCX, TXT, Markdown, JSON). It is stored and answered `pending`; a workflow then extracts its text ' +
          'and cuts it into chunks (`processing`), and the document becomes searchable when it is `completed`, ' +
          'or `failed` with a reason. The same file (by SHA-256) twice in one organization: 409. Over ' +
          '`KNOWLEDGE_BASE_MAX_BYTES`: 413. A body slower than `CSV_MIN_UPLOAD_BYTES_PER_SECOND` over any 10 seconds: 408.',
        tags,
        security,
        query: DocumentUploadQuery,
        streamedBody: {
          description: `The document, as the '${MULTIPART_FILE_FIELD}' field of a form`,
          content: { 'multipart/form-data': DocumentMultipartBody },
        },
        responses: {
          201: { description: 'Stored; processing has started', schema: DocumentResponse },
          400: errorResponse("The file's content does not match its type, or the form is malformed"),
          408: errorResponse('The document arrived slower than CSV_MIN_UPLOAD_BYTES_PER_SECOND'),
          409: errorResponse(
            `The same file is already in the knowledge base; or ${quotaBreach('knowledge_base_documents')}`,
          ),
          413: errorResponse('The document is larger than KNOWLEDGE_BASE_MAX_BYTES'),
          415: errorResponse(`Not multipart/form-data, or not a file type the knowledge base reads. ${UNSUPPORTED}`),
        },
      },
      async (ctx, { query, auth }) => {
        const upload = await documentUpload(
          ctx.req,
          config.KNOWLEDGE_BASE_MAX_BYTES,
          config.CSV_MIN_UPLOAD_BYTES_PER_SECOND,
        );
        const fileName = (query.file_name ?? upload.fileName ?? '').slice(0, 255);
        const fileType = fileTypeOf(fileName);
        if (!fileType) {
          upload.stream.resume();
          throw new AppError(415, `${UNSUPPORTED}; got '${fileName}'`, { Connection: 'close' });
        }
        // The whole file is on disk before it is read: a slow client holds no memory or connection.
        const spooled = await spoolUpload(upload.stream);
        const document = await importSlot(async () => {
          const { content, sha256 } = await readWithDigest(spooled.open());
          return documents.create(auth.organizationId, {
            fileName,
            fileType,
            content,
            sha256,
            retrievalMode: query.retrieval_mode,
            language: query.language,
          });
        }).finally(() => spooled.remove());
        ctx.state.log.info(
          {
            event: 'knowledge_base_document_uploaded',
            document_uuid: document.document_uuid,
            bytes: document.size_bytes,
          },
          'knowledge-base document uploaded',
        );
        ctx.status = 201;
        ctx.body = document;
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: BASE,
        operationId: 'listKnowledgeBaseDocuments',
        summary: "The organization's knowledge-base documents",
        description: 'Newest first, with their processing status and progress.',
        tags,
        security,
        query: DocumentListQuery,
        responses: { 200: { description: 'The documents', schema: DocumentList } },
      },
      async (ctx, { query, auth }) => {
        ctx.body = { documents: await documents.list(auth.organizationId, query) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${BASE}/{document_uuid}`,
        operationId: 'getKnowledgeBaseDocument',
        summary: 'One knowledge-base document',
        description: 'Its status, progress and, once processed, its counts.',
        tags,
        security,
        params: DocumentParams,
        responses: { 200: { description: 'The document', schema: DocumentResponse }, 404: errorResponse(NOT_FOUND) },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await documents.get(auth.organizationId, params.document_uuid);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${BASE}/{document_uuid}`,
        operationId: 'deleteKnowledgeBaseDocument',
        summary: 'Delete a knowledge-base document',
        description:
          'The document, its file and its chunks are deleted at once: searches and calls in progress no longer ' +
          'find it, and its processing stops if it still runs. The same file may be uploaded again afterwards.',
        tags,
        security,
        params: DocumentParams,
        responses: {
          200: { description: 'Deleted; the document as it was', schema: DocumentResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await documents.remove(auth.organizationId, params.document_uuid);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/knowledge-base/search',
        operationId: 'searchKnowledgeBase',
        summary: 'Search the knowledge base',
        description:
          "Ranks the chunks of the organization's completed documents (or of `document_uuids`) against the query " +
          "with PostgreSQL full-text search in each document's language, best first; with an embeddings endpoint " +
          'set, also by the similarity of their vectors to the query’s, the two rankings combined by reciprocal ' +
          'rank fusion. Documents still processing, failed, deleted or of another organization are never ' +
          'returned; unknown ids simply match nothing.',
        tags,
        security,
        body: SearchRequest,
        responses: { 200: { description: 'The best chunks, best first', schema: SearchResponse } },
      },
      async (ctx, { body, auth }) => {
        ctx.body = await searchKnowledgeBase({ db: dataSource, outbound }, auth.organizationId, {
          query: body.query,
          documentUuids: body.document_uuids,
          topK: body.top_k,
        });
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: EMBEDDINGS,
        operationId: 'getKnowledgeBaseEmbeddings',
        summary: "The organization's embeddings endpoint",
        description:
          'The OpenAI-compatible endpoint its documents and searches are embedded with; 404 when none is set.',
        tags,
        security,
        responses: {
          200: { description: 'The endpoint', schema: EmbeddingSettingsResponse },
          404: errorResponse(NO_EMBEDDINGS),
        },
      },
      async (ctx, { auth }) => {
        ctx.body = await embeddingSettings.get(auth.organizationId);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: EMBEDDINGS,
        operationId: 'setKnowledgeBaseEmbeddings',
        summary: 'Set the embeddings endpoint',
        description:
          'Documents processed from now on are embedded with it, in batches, before they complete; searches combine ' +
          'full text with the vectors of documents embedded with this `model`. Documents processed earlier (or with ' +
          'another model) keep being found by full text; upload them again to embed them.',
        tags,
        security,
        body: EmbeddingSettingsRequest,
        responses: {
          200: { description: 'Set', schema: EmbeddingSettingsResponse },
        },
      },
      async (ctx, { body, auth }) => {
        ctx.body = await embeddingSettings.put(auth.organizationId, body);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: EMBEDDINGS,
        operationId: 'deleteKnowledgeBaseEmbeddings',
        summary: 'Remove the embeddings endpoint',
        description: 'Back to full-text search only; documents are processed without vectors from now on.',
        tags,
        security,
        responses: {
          200: { description: 'Removed; the endpoint as it was', schema: EmbeddingSettingsResponse },
          404: errorResponse(NO_EMBEDDINGS),
        },
      },
      async (ctx, { auth }) => {
        ctx.body = await embeddingSettings.remove(auth.organizationId);
      },
    ),
  ];
}
