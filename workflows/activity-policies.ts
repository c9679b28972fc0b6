import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Refusals and unusable runs end the call; everything else may be tried again. */
export const NON_RETRYABLE = ['ProviderRefusedError', 'CallSetupError'];

/** Delivery attempts per post-call webhook node: 1 s, 2 s, 4 s, 8 s apart. */
export const WEBHOOK_MAX_ATTEMPTS = 5;

/**
 * How each kind of activity is timed and retried, by name: every proxy in workflows/ takes one of
 * these (adding only a UI summary), so a kind of work is retried the same way wherever it runs.
 */
export const ACTIVITY_POLICIES = {
  /**
   * An idempotent PostgreSQL write or check, or a signal to Temporal: retried until it is taken.
   * Short: a worker killed mid-activity holds the workflow up for this long before the retry.
   */
  databaseWrite: {
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  },
  /** A campaign's report of a call to its campaign: retried until the server takes the signal. */
  campaignReport: {
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  },
  /** A provider's status lookup or hang-up: a few tries; refusals and unusable runs are final. */
  providerCall: {
    startToCloseTimeout: '20 seconds',
    retry: { maximumAttempts: 4, initialInterval: '1 second', nonRetryableErrorTypes: NON_RETRYABLE },
  },
  /** Dialing: a few tries only; the idempotency key makes a retry after a crash safe. */
  providerDial: {
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '2 seconds', nonRetryableErrorTypes: NON_RETRYABLE },
  },
  /**
   * The pre-call fetch: its own retries stay within 15 s (domain/calls/pre-call-fetch.ts); this
   * retries only a lost worker or a failed database write, which repeat the request under the same
   * idempotency key.
   */
  preCallFetch: {
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  },
  /** The voicemail steps: a database read, and a notification to the API process holding a live call's stream. */
  voicemailStep: {
    startToCloseTimeout: '20 seconds',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
  },
  /** A post-call webhook: refused addresses and 4xx answers are final (domain/webhooks/delivery-errors.ts); the rest backs off. */
  webhookDelivery: {
    startToCloseTimeout: '30 seconds',
    retry: {
      maximumAttempts: WEBHOOK_MAX_ATTEMPTS,
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: ['WebhookRefusedError', 'WebhookRejectedError'],
    },
  },
  /**
   * A finished call's analysis: each QA node's model request is bounded (60 s) and its failure is
   * recorded, not retried; what is retried, with backoff, is the rest (the database), a few times.
   */
  postCallAnalysis: {
    startToCloseTimeout: '5 minutes',
    retry: { maximumAttempts: 4, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  },
  /**
   * Storing an organization event for its subscriptions (their deliveries are then retried on their
   * own): a few tries, so a database outage does not hold a call or campaign up for long.
   */
  eventEmit: {
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
  },
  /** Bookkeeping of a webhook that failed: retried until it succeeds, within reason. */
  webhookBookkeeping: {
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  },
  /**
   * One batch of the retention sweep: a transaction over up to a few hundred runs and their
   * recordings, idempotent, so a retry after a crash only repeats work already done.
   */
  retentionBatch: {
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes' },
  },
  /**
   * One agent turn of a text chat (the language model, tools, extraction): a few tries, since the
   * person waits for the answer; a failure changes nothing and the person may send again.
   */
  textChatStep: {
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 3, initialInterval: '1 second', nonRetryableErrorTypes: NON_RETRYABLE },
  },
  /**
   * A knowledge-base document's extraction, chunking and write: minutes for a large PDF, alive by
   * its heartbeat, so a killed worker's try is taken up again within the heartbeat timeout. A file
   * that cannot be read is final; other failures get a few tries, then the document fails.
   */
  documentIndexing: {
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '15 seconds',
    retry: {
      maximumAttempts: 5,
      initialInterval: '2 seconds',
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: ['ExtractionError'],
    },
  },
  /**
   * A document's chunks sent to its organization's embeddings endpoint, batch by batch: a retry goes
   * on from the last batch written; a refusal (4xx, an address not allowed) fails the document.
   */
  documentEmbedding: {
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: '15 seconds',
    retry: {
      maximumAttempts: 8,
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '2 minutes',
      nonRetryableErrorTypes: ['EmbeddingsRefusedError'],
    },
  },
  /** A health check reports the current state; retrying would hide an outage. */
  healthCheck: {
    startToCloseTimeout: '5 seconds',
    retry: { maximumAttempts: 1 },
  },
} satisfies Record<string, ActivityOptions & LocalActivityOptions>;

/**
 * Work that lasts as long as the call may: room for a call of `maxDurationSeconds`, then `extraSeconds`.
 * `simulatedConversation`: the simulator's conversation, tried twice; `callConclusion`: the outcome's
 * write (with a simulated conversation in it), retried until it commits.
 */
export const CALL_LENGTH_POLICIES = {
  simulatedConversation: (maxDurationSeconds: number): LocalActivityOptions => ({
    startToCloseTimeout: `${maxDurationSeconds + 60} seconds`,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: NON_RETRYABLE },
  }),
  callConclusion: (maxDurationSeconds: number): LocalActivityOptions => ({
    // Room for the simulated conversation, then for the write.
    startToCloseTimeout: `${maxDurationSeconds + 90} seconds`,
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  }),
};
