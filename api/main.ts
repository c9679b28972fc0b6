import 'reflect-metadata';
import { once } from 'node:events';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { createDataSource } from '../entities/data-source';
import { config, iceServersOf } from '../platform/config';
import { createLogger } from '../platform/logger';
import { temporalDataConverter } from '../platform/payload-codec';
import { startTracing } from '../platform/tracing/tracing';
import { loadSecrets, secretsKeySource } from '../telephony/secrets';
import { verifySecretsKey } from '../telephony/secrets-canary';
import { createRecordingStore } from '../voice/recording-store';
import { callSettingsFrom } from '../domain/calls/call-settings';
import { startLiveConversation } from '../voice/pipeline/live-conversation';
import { listenForVoicemailRequests, VoicemailRequests } from '../voice/pipeline/voicemail-requests';
import { createApp } from './app';
import { attachMediaServer } from './media/media-server';
import { webStream } from './media/web-stream';
import { webCallOrigins } from './web-call/page';
import { createMetrics, observeTurn } from './metrics';
import { ensureAdminUser } from '../domain/accounts/admin-user';

/** API process: config → PostgreSQL → Temporal client (lazy) → Koa; SIGTERM drains and closes. */
async function main(): Promise<void> {
  const cfg = config();
  const tracing = startTracing(cfg.OTEL_EXPORTER_OTLP_ENDPOINT, 'switchboard-api');
  const logger = createLogger(cfg.LOG_LEVEL, 'api');
  const dataSource = createDataSource({
    url: cfg.DATABASE_URL,
    poolSize: cfg.DATABASE_POOL_SIZE,
    applicationName: 'switchboard-api',
    statementTimeoutMs: cfg.DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000,
    idleInTransactionTimeoutMs: cfg.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS * 1000,
  });
  await dataSource.initialize();
  const secrets = loadSecrets(cfg);
  // Before anything is stored or read with a key that cannot open what is there.
  await verifySecretsKey(dataSource, secrets, secretsKeySource(cfg));
  if (await ensureAdminUser(dataSource, cfg)) logger.info({ email: cfg.ADMIN_EMAIL }, 'admin user created');
  // Lazy: the API starts (and answers 503 on Temporal routes) while Temporal is still coming up.
  const connection = Connection.lazy({ address: cfg.TEMPORAL_ADDRESS });
  // Workflows the API starts, signals and updates continue the request's trace.
  const temporal = new Client({
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(cfg),
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  });
  const metrics = createMetrics();
  const app = createApp({ config: cfg, dataSource, temporal, logger, metrics });
  // Call workflows ask for voicemail messages on live calls through PostgreSQL, whichever API process holds the stream.
  const voicemail = new VoicemailRequests();
  const voicemailListener = await listenForVoicemailRequests(cfg.DATABASE_URL, voicemail, logger);
  /** Conversations on open media streams: shutdown waits (a little) for them to report their results. */
  const conversations = new Set<Promise<void>>();

  const server = app.listen(cfg.PORT, cfg.HOST);
  // Provider media streams (WebSocket upgrades) share the API's port and PUBLIC_BASE_URL.
  const media = attachMediaServer(server, {
    dataSource,
    secrets,
    recordings: createRecordingStore(cfg, logger),
    logger,
    web: {
      stream: webStream({ dataSource, temporal, iceServers: iceServersOf(cfg.WEB_CALL_ICE_SERVERS) }),
      origins: webCallOrigins(cfg),
    },
    onSession: (session) => {
      const conversation = startLiveConversation(session, {
        dataSource,
        secrets,
        temporal,
        config: cfg,
        llm: callSettingsFrom(cfg).llm,
        logger,
        onLatency: (latency) => observeTurn(metrics, latency),
        voicemail,
      });
      conversations.add(conversation);
      void conversation.finally(() => conversations.delete(conversation));
    },
  });
  await once(server, 'listening');
  logger.info({ port: cfg.PORT, host: cfg.HOST }, 'api listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    // Listened for first: with no connection open, the server closes at once.
    const closed = once(server, 'close');
    server.close();
    server.closeIdleConnections();
    await media.close();
    // Ended streams end their conversations; let them tell their call workflows.
    await Promise.race([Promise.all(conversations), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    // A client holding a keep-alive connection open must not hold up the stop.
    const closeAll = setTimeout(() => server.closeAllConnections(), 2_000);
    await closed;
    clearTimeout(closeAll);
    await connection.close();
    await voicemailListener.close();
    await dataSource.destroy();
    await tracing.shutdown();
    logger.info('api stopped');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'api shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
