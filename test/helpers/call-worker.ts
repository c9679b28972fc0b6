import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { converse } from '../../agent-runtime';
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
          allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
        },
        converse,
        temporal: services.temporal.client,
      },
    }),
    ...options.worker,
  });
}
