import type { ConversationTools, ToolFunction, ToolResult } from '../../agent-runtime/tools';
import { knowledgeBaseSearchReads } from '../../entities/repositories/knowledge-base-search.repository';
import { searchKnowledgeBase, type SearchDeps } from './search';

/** The function a node with `document_uuids` offers the model. */
export const RETRIEVAL_FUNCTION_NAME = 'retrieve_from_knowledge_base';
/** The `tool_uuid` its calls are logged under: it is no stored tool. */
export const KNOWLEDGE_BASE_TOOL = 'knowledge_base';
/** Passages one retrieval returns. */
export const RETRIEVAL_TOP_K = 3;
/** The most of a `full_document` document's text handed to the model in one retrieval. */
export const FULL_DOCUMENT_MAX_CHARS = 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function retrievalFunction(documentUuids: readonly string[]): ToolFunction {
  return {
    toolUuid: KNOWLEDGE_BASE_TOOL,
    name: RETRIEVAL_FUNCTION_NAME,
    description:
      "Searches the organization's documents for passages that answer a question. Call it with the caller's " +
      'question before answering questions about facts, policies, prices or products; answer from what it returns.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'The question or keywords to look up' } },
      required: ['query'],
      additionalProperties: false,
    },
    definition: { schema_version: 1, type: 'knowledge_base', config: { document_uuids: [...documentUuids] } },
  };
}

export type Retriever = (documentUuids: readonly string[], query: unknown) => Promise<ToolResult>;

/**
 * One retrieval over a node's documents, read when it runs: the organization's completed documents
 * among them only (a document deleted during the call is no longer found). `chunked` documents give
 * their best `RETRIEVAL_TOP_K` passages with file name, position, page and score; `full_document`
 * documents are given whole (up to FULL_DOCUMENT_MAX_CHARS).
 */
export function createRetriever(deps: SearchDeps, organizationId: number): Retriever {
  const reads = knowledgeBaseSearchReads(deps.db);
  return async (documentUuids, query) => {
    if (typeof query !== 'string' || query.trim() === '') {
      return { ok: false, error: 'query must be a non-empty string' };
    }
    const uuids = documentUuids.filter((uuid) => UUID.test(uuid));
    const documents = await reads.completedDocumentsAmong(organizationId, uuids);
    const chunked = documents
      .filter((document) => document.retrieval_mode === 'chunked')
      .map((document) => document.id);
    const whole = documents.filter((document) => document.retrieval_mode === 'full_document');
    const hits =
      chunked.length === 0
        ? []
        : (
            await searchKnowledgeBase(deps, organizationId, {
              query,
              documentUuids: chunked,
              topK: RETRIEVAL_TOP_K,
            })
          ).results;
    const texts =
      whole.length === 0
        ? []
        : await reads.fullTexts(
            organizationId,
            whole.map((document) => document.id),
            FULL_DOCUMENT_MAX_CHARS,
          );
    return {
      ok: true,
      data: {
        results: hits.map((hit) => ({
          file_name: hit.file_name,
          position: hit.position,
          ...(hit.page === null ? {} : { page: hit.page }),
          ...(hit.heading ? { heading: hit.heading } : {}),
          score: Math.round(hit.score * 10_000) / 10_000,
          text: hit.content,
        })),
        ...(texts.length > 0
          ? {
              documents: texts.map((text) => ({
                file_name: text.file_name,
                text: text.text,
                ...(text.truncated ? { truncated: true } : {}),
              })),
            }
          : {}),
      },
    };
  };
}

/** The stored tools, plus the retrieval at every node that names documents. */
export function withKnowledgeBase(tools: ConversationTools | undefined, retrieve: Retriever): ConversationTools {
  return {
    forNode: (node) => [
      ...(tools?.forNode(node) ?? []),
      ...(node.document_uuids.length > 0 ? [retrievalFunction(node.document_uuids)] : []),
    ],
    invoke: async (invocation) => {
      const { definition } = invocation.fn;
      if (definition.type === 'knowledge_base') {
        return { result: await retrieve(definition.config.document_uuids, invocation.args.query) };
      }
      if (!tools) return { result: { ok: false, error: 'no such tool' } };
      return tools.invoke(invocation);
    },
  };
}
