import 'reflect-metadata';
import { hostname } from 'node:os';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../activities';
import { callSettingsFrom } from '../activities/call-settings';
import { converse } from '../agent-runtime';
import { createDataSource } from '../entities/data-source';
import { config } from '../platform/config';
import { createLogger } from '../platform/logger';
import { loadSecrets } from '../telephony/secrets';
import { workflowSource } from './workflow-source';

const sdkLogLevel = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
} as const;

/**
 * Worker process: registers the workflows and activities on the task queue. On SIGINT/SIGTERM the
 * SDK stops polling and lets in-flight activities finish for WORKER_SHUTDOWN_GRACE_SECONDS.
 */
async function main(): Promise<void> {
  const cfg = config();
  const logger = createLogger(cfg.LOG_LEVEL, 'worker');
  Runtime.install({
    logger: new DefaultLogger(sdkLogLevel[cfg.LOG_LEVEL]),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      // The SDK's own Prometheus endpoint: task latencies, slots, polls, sticky cache.
      metrics: { prometheus: { bindAddress: `0.0.0.0:${cfg.WORKER_METRICS_PORT}` }, metricPrefix: 'temporal_' },
    },
  });

  const dataSource = createDataSource({
    url: cfg.DATABASE_URL,
    poolSize: cfg.DATABASE_POOL_SIZE,
    applicationName: 'switchboard-worker',
  });
  await dataSource.initialize();
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const identity = `${process.pid}@${hostname()}`;
  try {
    const worker = await Worker.create({
      connection,
      namespace: cfg.TEMPORAL_NAMESPACE,
      taskQueue: cfg.TEMPORAL_TASK_QUEUE,
      identity,
      ...workflowSource(cfg),
      activities: createActivities({
        dataSource,
        workerIdentity: identity,
        calls: { secrets: loadSecrets(cfg), settings: callSettingsFrom(cfg), converse },
      }),
      shutdownGraceTime: `${cfg.WORKER_SHUTDOWN_GRACE_SECONDS} seconds`,
    });
    logger.info(
      { taskQueue: cfg.TEMPORAL_TASK_QUEUE, metricsPort: cfg.WORKER_METRICS_PORT, identity },
      'worker running',
    );
    await worker.run();
    logger.info('worker stopped');
  } finally {
    await connection.close();
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
