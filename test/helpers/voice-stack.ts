import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import type { TurnLatency } from '../../agent-runtime';
import { attachMediaServer, type MediaServer } from '../../api/media/media-server';
import { webStream } from '../../api/media/web-stream';
import { webCallOrigins } from '../../api/web-call/page';
import { iceServersOf } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import type { MediaSession } from '../../voice/media-session';
import { startLiveConversation } from '../../voice/pipeline/live-conversation';
import { listenForVoicemailRequests, VoicemailRequests } from '../../voice/pipeline/voicemail-requests';
import type { VoiceEvent } from '../../voice/pipeline/live-party';
import { buildTestApp } from './app';
import { callWorker } from './call-worker';
import type { TestServices } from './services';
import { TEST_SECRETS_KEY } from './telephony';
import { uniqueTaskQueue } from './temporal';

export interface VoiceStack {
  baseUrl: string;
  app: ReturnType<typeof buildTestApp>['app'];
  taskQueue: string;
  recordingsDir: string;
  secrets: Secrets;
  sessions: MediaSession[];
  latencies: TurnLatency[];
  /** Voice events by run id. */
  events: Map<number, VoiceEvent[]>;
  /** Conversations started on media streams (they settle once reported to their call workflows). */
  conversations: Promise<void>[];
  createWorker(): Promise<Worker>;
  close(): Promise<void>;
}

/**
 * The API as `api/main.ts` runs it, in the test process: the app and the media endpoint on one
 * real HTTP port (PUBLIC_BASE_URL points at it, so providers and the simulator reach it), the
 * voice pipeline on every media session, and a worker factory for the file's own task queue.
 */
export async function startVoiceStack(
  services: TestServices,
  name: string,
  env: Record<string, string> = {},
): Promise<VoiceStack> {
  const recordingsDir = await mkdtemp(join(tmpdir(), `${name}-recordings-`));
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const taskQueue = uniqueTaskQueue(name);
  const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));
  const { app, deps } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      PUBLIC_BASE_URL: baseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      RECORDINGS_DIR: recordingsDir,
      ...env,
    },
  );
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  const sessions: MediaSession[] = [];
  const latencies: TurnLatency[] = [];
  const conversations: Promise<void>[] = [];
  const events = new Map<number, VoiceEvent[]>();
  const logger = createLogger(deps.config.LOG_LEVEL, name);
  const voicemail = new VoicemailRequests();
  const voicemailListener = await listenForVoicemailRequests(services.db.url, voicemail, logger);
  const media: MediaServer = attachMediaServer(http, {
    dataSource: services.db.dataSource,
    secrets,
    recordings: new DiskRecordingStore(recordingsDir),
    logger,
    web: {
      stream: webStream({
        dataSource: services.db.dataSource,
        temporal: services.temporal.client,
        iceServers: iceServersOf(deps.config.WEB_CALL_ICE_SERVERS),
      }),
      origins: webCallOrigins(deps.config),
    },
    onSession: (session) => {
      sessions.push(session);
      conversations.push(
        startLiveConversation(session, {
          dataSource: services.db.dataSource,
          secrets,
          temporal: services.temporal.client,
          config: deps.config,
          logger,
          onLatency: (latency) => latencies.push(latency),
          onEvent: (runId, event) => events.set(runId, [...(events.get(runId) ?? []), event]),
          voicemail,
        }),
      );
    },
  });
  return {
    baseUrl,
    app,
    taskQueue,
    recordingsDir,
    secrets,
    sessions,
    latencies,
    events,
    conversations,
    createWorker: () =>
      callWorker(services, {
        taskQueue,
        baseUrl,
        identity: name,
        prices: { perMinuteUsd: 0.06, per1kTokensUsd: 0.002 },
      }),
    async close() {
      await media.close();
      await Promise.allSettled(conversations);
      await voicemailListener.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await rm(recordingsDir, { recursive: true, force: true });
    },
  };
}
