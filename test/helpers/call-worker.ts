import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import { converse, type LlmSettings } from '../../agent-runtime';
import type { DialRules } from '../../domain/compliance/dial-rules';
import { Secrets } from '../../telephony/secrets';
import type { TestServices } from './services';
import { testDataConverter, testWorkflowBundle } from './temporal';
import { TEST_SECRETS_KEY } from './telephony';

export interface CallWorkerOptions {
  taskQueue: string;
  /** Where providers (the simulator) call back: the test's API. */
  baseUrl: string;
  identity: string;
  prices?: { perMinuteUsd: number; per1kTokensUsd: number };
  /** Options over the defaults: another workflow bundle, interceptors, sinks. */
  worker?: Partial<WorkerOptions>;
  /** Default: the do-not-call list only, no frequency caps. */
  dialRules?: DialRules;
  /** A language model (a local fake); default: the offline policy. */
  llm?: LlmSettings;
  /** Webhook deliveries' address policy and limits; default: no private addresses. */
  webhooks?: ActivityDeps['webhooks'];
  /** `ALLOW_PRIVATE_WEBHOOKS` for tools and pre-call fetch (default false, as in production). */
  allowPrivateWebhooks?: boolean;
}

/** A worker as `workers/main.ts` runs it, on the test's task queue, with every call activity. */
export function callWorker(services: TestServices, options: CallWorkerOptions): Promise<Worker> {
  const prices = options.prices ?? { perMinuteUsd: 0, per1kTokensUsd: 0 };
  return Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue: options.taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: options.identity,
      calls: {
        secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
        settings: {
          publicBaseUrl: options.baseUrl,
          pricePerMinuteUsd: prices.perMinuteUsd,
          pricePer1kTokensUsd: prices.per1kTokensUsd,
          dialRules: options.dialRules,
          ...(options.llm ? { llm: options.llm } : {}),
          allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
        },
        converse,
        temporal: services.temporal.client,
      },
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    }),
    ...options.worker,
  });
}
