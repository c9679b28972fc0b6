import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { DocumentProcessing, type IndexedDocument } from '../domain/knowledge-base/processing';

export interface KnowledgeBaseActivityDeps {
  dataSource: DataSource;
}

/** How often a long step tells Temporal it is alive: a killed worker's step is retried after the heartbeat timeout. */
const HEARTBEAT_MS = 2_000;

export function createKnowledgeBaseActivities({ dataSource }: KnowledgeBaseActivityDeps) {
  const processing = new DocumentProcessing(dataSource);
  return {
    /** `pending` → `processing`; false when the document was deleted (or already finished). */
    beginDocumentProcessing(documentUuid: string): Promise<boolean> {
      return processing.begin(documentUuid);
    },

    /**
     * Extraction, chunking and the chunks' write, heartbeating throughout. A file that cannot be
     * read fails with `ExtractionError` (not retried); anything else is retried from the start,
     * which replaces whatever an earlier try wrote.
     */
    async indexDocument(documentUuid: string): Promise<IndexedDocument> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      try {
        return await processing.index(documentUuid, (percent) => processing.progress(documentUuid, percent));
      } finally {
        clearInterval(beat);
      }
    },

    /** `processing` → `completed`: its chunks are searched from now on. */
    completeDocument(documentUuid: string): Promise<void> {
      return processing.complete(documentUuid);
    },

    /** `failed` with the reason, and no chunk left. */
    failDocument(documentUuid: string, reason: string): Promise<void> {
      return processing.fail(documentUuid, reason);
    },
  };
}
