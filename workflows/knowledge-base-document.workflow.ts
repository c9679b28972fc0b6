import { ActivityFailure, isCancellation, patched, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createKnowledgeBaseActivities } from '../activities/knowledge-base.activities';
import { ACTIVITY_POLICIES } from './activity-policies';

type KnowledgeBaseActivities = ReturnType<typeof createKnowledgeBaseActivities>;

const steps = proxyActivities<KnowledgeBaseActivities>(ACTIVITY_POLICIES.databaseWrite);
const { indexDocument } = proxyActivities<KnowledgeBaseActivities>(ACTIVITY_POLICIES.documentIndexing);
const { embedDocument } = proxyActivities<KnowledgeBaseActivities>(ACTIVITY_POLICIES.documentEmbedding);

/** Histories of documents processed before chunks were embedded replay without the embedding step. */
export const EMBEDDING_PATCH = 'knowledge-base-embeddings';

export interface DocumentWorkflowInput {
  documentUuid: string;
}

export type DocumentOutcome = 'completed' | 'failed' | 'gone';

/** The reason a failed step gives, as the document shows it. */
function failureReason(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof Error && cause.message ? cause.message : 'Processing failed';
}

/**
 * One knowledge-base document's processing: `pending` → `processing` → `completed`, or `failed`
 * with the reason. Its chunks are written, then embedded when the organization has an embeddings
 * endpoint, and become searchable only in the single step that completes it, so a worker killed
 * mid-way (its step is tried again) never leaves a half-indexed or half-embedded document
 * searchable. A document deleted meanwhile ends the workflow quietly ('gone'). The Temporal UI
 * shows the current step; the document's `progress_percent` follows it.
 */
export async function knowledgeBaseDocumentWorkflow({ documentUuid }: DocumentWorkflowInput): Promise<DocumentOutcome> {
  setCurrentDetails('Starting');
  if (!(await steps.beginDocumentProcessing(documentUuid))) return 'gone';
  const failed = async (error: unknown): Promise<DocumentOutcome> => {
    if (isCancellation(error)) throw error;
    const reason = failureReason(error);
    await steps.failDocument(documentUuid, reason);
    setCurrentDetails(`Failed: ${reason}`);
    return 'failed';
  };
  setCurrentDetails('Extracting the text and cutting it into chunks');
  let indexed;
  try {
    indexed = await indexDocument(documentUuid);
  } catch (error) {
    return failed(error);
  }
  if (indexed.gone) return 'gone';
  let embedded = '';
  if (patched(EMBEDDING_PATCH)) {
    setCurrentDetails(`${indexed.chunkCount} chunks written; embedding them if an embeddings endpoint is set`);
    try {
      const outcome = await embedDocument(documentUuid);
      if (outcome.gone) return 'gone';
      if (outcome.model !== null) embedded = `, embedded with ${outcome.model}`;
    } catch (error) {
      return failed(error);
    }
  }
  setCurrentDetails(`${indexed.chunkCount} chunks written${embedded}; making them searchable`);
  await steps.completeDocument(documentUuid);
  setCurrentDetails(
    `Completed: ${indexed.chunkCount} chunks` +
      (indexed.pageCount === null ? '' : ` from ${indexed.pageCount} pages`) +
      embedded,
  );
  return 'completed';
}
