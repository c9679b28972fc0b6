import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { embedTexts, type EmbeddingsOutbound } from '../domain/knowledge-base/embeddings';
import {
  DocumentProcessing,
  embeddingProgress,
  type EmbeddedDocument,
  type IndexedDocument,
} from '../domain/knowledge-base/processing';

export interface KnowledgeBaseActivityDeps {
  dataSource: DataSource;
  /** How the organizations' embeddings endpoints are reached; without it a document to embed waits for a worker that has it. */
  embeddings?: EmbeddingsOutbound;
}

/** How often a long step tells Temporal it is alive: a killed worker's step is retried after the heartbeat timeout. */
const HEARTBEAT_MS = 2_000;

export function createKnowledgeBaseActivities({ dataSource, embeddings }: KnowledgeBaseActivityDeps) {
  const processing = new DocumentProcessing(dataSource);
  const heartbeating = async <T>(work: () => Promise<T>): Promise<T> => {
    const context = Context.current();
    const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
    try {
      return await work();
    } finally {
      clearInterval(beat);
    }
  };
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
    indexDocument(documentUuid: string): Promise<IndexedDocument> {
      return heartbeating(() =>
        processing.index(documentUuid, (percent) => processing.progress(documentUuid, percent)),
      );
    },

    /**
     * The chunks' vectors, in batches, when the organization has an embeddings endpoint; a retry
     * goes on from the last batch written. An endpoint that refuses (4xx) fails the step for good
     * (`EmbeddingsRefusedError`); network errors, 5xx and 429 are retried with backoff.
     */
    embedDocument(documentUuid: string): Promise<EmbeddedDocument> {
      return heartbeating(async () => {
        const { cancellationSignal } = Context.current();
        return processing.embed(
          documentUuid,
          (organizationId, settings, texts) => {
            if (!embeddings) throw new Error('This worker has no way to reach embeddings endpoints');
            return embedTexts(embeddings, organizationId, settings, texts, cancellationSignal);
          },
          (done, total) => processing.progress(documentUuid, embeddingProgress(done, total)),
        );
      });
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
