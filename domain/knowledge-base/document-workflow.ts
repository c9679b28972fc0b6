import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { KnowledgeBaseDocument } from '../../entities';
import type { knowledgeBaseDocumentWorkflow } from '../../workflows/knowledge-base-document.workflow';
import { OrganizationIdAttribute } from '../../workflows/search-attributes';
import { withinDeadline } from '../campaigns/campaign-workflow';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
type DocumentWorkflow = typeof knowledgeBaseDocumentWorkflow;
const DOCUMENT_WORKFLOW_TYPE = 'knowledgeBaseDocumentWorkflow';

export const documentWorkflowId = (documentUuid: string): string => `knowledge-base-document-${documentUuid}`;

/** Starts the document's processing (`knowledge-base-document-<uuid>`), findable by organization in the Temporal UI. */
export async function startDocumentWorkflow(
  temporal: Client,
  taskQueue: string,
  document: KnowledgeBaseDocument,
): Promise<void> {
  await withinDeadline(temporal, () =>
    temporal.workflow.start<DocumentWorkflow>(DOCUMENT_WORKFLOW_TYPE, {
      workflowId: documentWorkflowId(document.id),
      taskQueue,
      args: [{ documentUuid: document.id }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: OrganizationIdAttribute, value: document.organizationId }],
      staticSummary: `Knowledge base: "${document.fileName}"`,
      staticDetails:
        `Document \`${document.id}\` of organization ${document.organizationId}: ${document.fileType}, ` +
        `${document.sizeBytes} bytes, ${document.retrievalMode}, indexed in ${document.language}`,
    }),
  );
}

/** Stops a deleted document's processing; a workflow already gone is fine (it also stops by itself). */
export async function cancelDocumentWorkflow(temporal: Client, documentUuid: string): Promise<void> {
  try {
    await withinDeadline(temporal, () => temporal.workflow.getHandle(documentWorkflowId(documentUuid)).cancel());
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
