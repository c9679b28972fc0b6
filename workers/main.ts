import 'reflect-metadata';
import { hostname } from 'node:os';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createRecordingStore } from '../voice/recording-store';
import { ensureDataRetentionSchedule } from './data-retention-schedule';
import { callSettingsFrom } from '../domain/calls/call-settings';
import { converse } from '../agent-runtime';
import { signalCallStatus, signalTransferStatus } from '../domain/calls/call-status-signal';
import { acceptAriStasisStart } from '../domain/calls/inbound';
import { createToolRunnerDeps } from '../domain/tools/tool-runner-deps';
import { createDataSource } from '../entities/data-source';
import { config } from '../platform/config';
import { lowerCpuPriority } from '../platform/cpu-priority';
import { temporalDataConverter } from '../platform/payload-codec';
import { createLogger } from '../platform/logger';
import { startTracing } from '../platform/tracing/tracing';
import { workerTracing } from '../platform/tracing/worker-tracing';
import { connectTemporalClient } from '../platform/temporal';
import { ariEndpointPolicy } from '../telephony/providers/ari/endpoint';
import { AriListener } from '../telephony/providers/ari/listener';
import { providerFor } from '../telephony/registry';
import { loadSecrets, secretsKeySource } from '../telephony/secrets';
import { verifySecretsKey } from '../telephony/secrets-canary';
import { workerDeploymentOptions } from './versioning';
import { loadWorkflowCode } from './workflow-code';

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
  // First, so that the threads the SDK and the database driver start inherit it.
  lowerCpuPriority(cfg.WORKER_NICE);
  const tracing = startTracing(cfg.OTEL_EXPORTER_OTLP_ENDPOINT, 'switchboard-worker');
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
  const secrets = loadSecrets(cfg);
  // Before any activity stores or reads with a key that cannot open what is there.
  await verifySecretsKey(dataSource, secrets, secretsKeySource(cfg));
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const identity = `${process.pid}@${hostname()}`;
  // Campaign calls report to their campaign through it; the ARI listener signals calls with it.
  const dataConverter = temporalDataConverter(cfg);
  const temporal = await connectTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, dataConverter);
  const workflows = await loadWorkflowCode(cfg);
  const deployment = cfg.TEMPORAL_WORKER_VERSIONING
    ? workerDeploymentOptions({ deploymentName: cfg.TEMPORAL_DEPLOYMENT_NAME, buildId: workflows.buildId })
    : undefined;
  try {
    const worker = await Worker.create({
      connection,
      namespace: cfg.TEMPORAL_NAMESPACE,
      taskQueue: cfg.TEMPORAL_TASK_QUEUE,
      identity,
      dataConverter,
      workflowBundle: { code: workflows.code },
      ...workerTracing(tracing),
      activities: createActivities({
        dataSource,
        workerIdentity: identity,
        calls: { secrets, settings: callSettingsFrom(cfg), converse, temporal },
        embeddings: createToolRunnerDeps({ dataSource, secrets, config: cfg }),
        webhooks: { allowPrivate: cfg.ALLOW_PRIVATE_WEBHOOKS, signV1: cfg.WEBHOOK_SIGNATURE_V1 },
        recordings: createRecordingStore(cfg, logger),
      }),
      shutdownGraceTime: `${cfg.WORKER_SHUTDOWN_GRACE_SECONDS} seconds`,
      // No eager activities: under load an eagerly dispatched task whose workflow-task completion
      // times out is lost until its start-to-close timeout (minutes for a conversation); see docs/BENCHMARKS.md.
      maxEagerActivityReservationsPerWorkflowTask: 0,
      ...(cfg.WORKER_MAX_CACHED_WORKFLOWS === undefined ? {} : { maxCachedWorkflows: cfg.WORKER_MAX_CACHED_WORKFLOWS }),
      ...(deployment ? { workerDeploymentOptions: deployment } : {}),
    });
    // Retention is a sweep, not part of any call: a worker that cannot create it still serves calls.
    await ensureDataRetentionSchedule(temporal, cfg.TEMPORAL_TASK_QUEUE).then(
      (outcome) => logger.info({ schedule: 'data-retention', outcome }, 'retention schedule ready'),
      (error: unknown) =>
        logger.warn({ err: error }, 'retention schedule could not be created; retrying at next start'),
    );
    logger.info(
      { taskQueue: cfg.TEMPORAL_TASK_QUEUE, metricsPort: cfg.WORKER_METRICS_PORT, identity, ...deployment?.version },
      'worker running',
    );
    // The SDK itself stops the worker on these signals; this says what the stop waits for.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        const inFlight = worker.getStatus().numInFlightActivities;
        if (inFlight === 0) logger.info('worker stopping');
        else
          logger.info(
            { inFlightActivities: inFlight, graceSeconds: cfg.WORKER_SHUTDOWN_GRACE_SECONDS },
            'worker stopping: waiting for the activities in flight (calls) to finish',
          );
      });
    }
    // Asterisk's call events arrive over WebSockets this process keeps open (docs/guides/asterisk.md).
    const ariListener = new AriListener({
      dataSource,
      signalCallStatus: (run, status) => signalCallStatus(temporal, run, status),
      signalTransferStatus: (run, update) => signalTransferStatus(temporal, run, update),
      secrets,
      logger: logger.child({ component: 'ari-listener' }),
      apiBaseUrl: cfg.TELEPHONY_API_BASE_URL,
      allowPrivateEndpoints: cfg.ALLOW_PRIVATE_ARI_ENDPOINTS,
      onInboundCall: async ({ configuration, event }) => {
        const outcome = await acceptAriStasisStart(
          {
            dataSource,
            temporal,
            taskQueue: cfg.TEMPORAL_TASK_QUEUE,
            publicBaseUrl: cfg.PUBLIC_BASE_URL,
            secrets,
            adapterFor: (row) =>
              providerFor(row, secrets, {
                apiBaseUrl: cfg.TELEPHONY_API_BASE_URL,
                dataSource,
                endpointPolicy: ariEndpointPolicy(cfg.ALLOW_PRIVATE_ARI_ENDPOINTS),
              }),
          },
          configuration,
          JSON.stringify(event),
        );
        if (outcome && !outcome.answered) logger.info({ reason: outcome.reason }, 'inbound ARI call refused');
      },
    });
    await ariListener.start();
    try {
      await worker.run();
    } finally {
      await ariListener.stop();
    }
    logger.info('worker stopped');
  } finally {
    await temporal.connection.close();
    await connection.close();
    await dataSource.destroy();
    await tracing.shutdown();
  }
}

// Exit once stopped: the SDK's native runtime (metrics endpoint, threads) would keep the process up.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
