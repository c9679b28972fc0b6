import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DataSource } from 'typeorm';
import { WebSocketServer, type WebSocket } from 'ws';
import { Run } from '../../entities';
import type { Logger } from '../../platform/logger';
import { redactMediaToken } from '../../platform/log-redaction';
import type { Secrets } from '../../telephony/secrets';
import { MediaSession } from '../../voice/media-session';
import { mediaTokenKey, verifyMediaToken } from '../../voice/media-token';
import type { RecordingStore } from '../../voice/recording-store';
import { recordingUrl } from '../../voice/recordings';
import { TwoTrackRecorder } from '../../voice/two-track-recorder';
import { API_PREFIX } from '../openapi';
import { ariStream } from './ari-stream';
import { postgresStreamClaims } from './stream-claims';
import { cloudonixStream } from './cloudonix-stream';
import { plivoStream } from './plivo-stream';
import type { ProviderStreamFactory } from './stream-support';
import { telnyxStream } from './telnyx-stream';
import { runTwilioStream, TwilioTransport } from './twilio-stream';
import { vonageStream } from './vonage-stream';
import { WEB_PROVIDER } from '../../telephony/providers/web/web-calls';

/**
 * `…/media/{run_id}?token=…`, or `…/media/{run_id}/{token}` where the provider takes no query
 * (Twilio), or `…/media?run_id=…&token=…`: Asterisk connects (chan_websocket client mode) to the
 * fixed URI of websocket_client.conf and can only append query parameters (the `v(…)` option).
 */
const MEDIA_PATH = new RegExp(`^${API_PREFIX}/telephony/([a-z0-9_-]+)/media(?:/(\\d{1,15})(?:/([0-9A-Za-z._-]+))?)?$`);

const twilioStream: ProviderStreamFactory = (socket, log) => {
  const transport = new TwilioTransport(socket);
  return { transport, attach: (session) => runTwilioStream(socket, transport, session, log) };
};

/** The media protocol of each provider served; other providers' media URLs answer 404. */
const SERVED_PROVIDERS: ReadonlyMap<string, ProviderStreamFactory> = new Map([
  ['twilio', twilioStream],
  ['plivo', plivoStream],
  // Vobiz streams are Plivo's (provider-wire-formats §3), less the `stop` frame.
  ['vobiz', plivoStream],
  ['telnyx', telnyxStream],
  ['vonage', vonageStream],
  ['cloudonix', cloudonixStream],
  ['ari', ariStream],
  // The simulator's audio calls stream like Twilio (telephony/providers/simulator/audio-callee.ts).
  ['simulator', twilioStream],
]);

export interface MediaServerDeps {
  dataSource: DataSource;
  secrets: Pick<Secrets, 'deriveKey'>;
  /** Where each call is recorded while it runs, and kept once it ends (local disk or S3). */
  recordings: RecordingStore;
  logger: Logger;
  /** Hears every session as it opens (the voice pipeline; tests). */
  onSession?: (session: MediaSession) => void;
  /**
   * Calls from a browser (provider `web`): their signalling protocol, and the origins whose pages
   * may open it (a request without `Origin` is no browser's). Unset: web calls are not served.
   */
  web?: { stream: ProviderStreamFactory; origins: readonly string[] };
}

export interface MediaServer {
  /** Open media sessions by run id. */
  readonly sessions: ReadonlyMap<number, MediaSession>;
  /** Closes every media socket (going away) and waits for their recordings to be closed and kept. */
  close(): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: 401 | 403 | 404 | 409,
    readonly detail: string,
  ) {
    super(detail);
  }
}

const STATUS_TEXT = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict' } as const;

/** Answers an upgrade request with a plain HTTP error: the WebSocket never opens. */
function refuse(socket: Duplex, { status, detail }: Refusal): void {
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Largest media frame accepted (ws closes the socket with 1009 beyond it). */
export const MAX_FRAME_BYTES = 256 * 1024;

/**
 * The media WebSocket endpoint, `${API_PREFIX}/telephony/{provider}/media/{run_id}?token=…` (or the
 * token as a last path segment, or the run id in the query: see MEDIA_PATH), on the API's HTTP
 * server, speaking the provider's protocol (SERVED_PROVIDERS). The token is checked before the
 * upgrade completes; one stream per run at a time across every API process (`media_stream_claims`),
 * and another only while the run goes on (a provider streaming the caller back after a transfer).
 */
export function attachMediaServer(server: Server, deps: MediaServerDeps): MediaServer {
  // A media frame is 20–100 ms of audio (a few kB); anything far larger is not a provider talking.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const key = mediaTokenKey(deps.secrets);
  const sessions = new Map<number, MediaSession>();
  // In PostgreSQL, not in this process: another API process may be asked for the same run's stream.
  const claims = postgresStreamClaims(deps.dataSource);
  const release = (runId: number): void => {
    claims
      .release(runId)
      .catch((error: unknown) => log.error({ err: error, runId }, 'media stream claim not released'));
  };
  const sockets = new Set<WebSocket>();
  const log = deps.logger.child({ component: 'media' });

  const admit = async (request: IncomingMessage) => {
    const url = new URL(request.url ?? '/', 'http://media.invalid');
    const match = MEDIA_PATH.exec(url.pathname);
    const runIdText = match?.[2] ?? url.searchParams.get('run_id') ?? '';
    if (!match?.[1] || !/^\d{1,15}$/.test(runIdText)) throw new Refusal(404, 'Not Found');
    const provider = match[1];
    const runId = Number(runIdText);
    const stream = provider === WEB_PROVIDER ? deps.web?.stream : SERVED_PROVIDERS.get(provider);
    if (!stream) throw new Refusal(404, 'No media endpoint for this provider');
    const origin = request.headers.origin;
    if (provider === WEB_PROVIDER && origin !== undefined && !deps.web?.origins.includes(origin)) {
      throw new Refusal(403, 'This origin may not join web calls');
    }
    const token = match[3] ?? url.searchParams.get('token') ?? '';
    const check = verifyMediaToken(key, token, { provider, runId });
    if (check !== 'valid') throw new Refusal(401, check === 'expired' ? 'Media token expired' : 'Invalid media token');
    const run = await claims.claim(runId, provider);
    if (run === 'missing') throw new Refusal(404, 'Run not found');
    // Two streams would speak to the same call twice.
    if (run === 'taken') throw new Refusal(409, 'This run already has a media stream');
    return { run, stream };
  };

  const open = async (request: IncomingMessage, socket: Duplex, head: Buffer, handOver: () => void) => {
    const { run, stream: streamOf } = await admit(request);
    let recorder: TwoTrackRecorder;
    const path = deps.recordings.localPath(run.id);
    try {
      // A stream back after a transfer that did not connect carries on the call's recording.
      recorder = run.recorded
        ? await TwoTrackRecorder.resume(path, async () => (await deps.recordings.find(run.id))?.open() ?? null)
        : await TwoTrackRecorder.create(path);
    } catch (error) {
      release(run.id);
      throw error;
    }
    // From here on `ws` handles the socket's errors.
    handOver();
    let upgraded = false;
    socket.once('close', () => {
      // `ws` refused the handshake itself (a malformed upgrade request): nothing will be recorded.
      if (upgraded) return;
      release(run.id);
      recorder.close().catch(() => undefined);
    });
    wss.handleUpgrade(request, socket, head, (ws) => {
      upgraded = true;
      sockets.add(ws);
      const stream = streamOf(ws, log);
      const session = new MediaSession(run.id, stream.transport, recorder, async (closed) => {
        sessions.delete(run.id);
        // Kept (uploaded to S3) before recording_url is set: the route never looks for one mid-upload.
        await deps.recordings.keep(run.id);
        await deps.dataSource
          .getRepository(Run)
          .update({ id: run.id }, { recordingUrl: recordingUrl(run.agentId, run.id) });
        // Released only now: until recording_url is set, a new stream would pass the check above.
        await claims.release(run.id);
        log.info({ runId: run.id, seconds: closed.durationSeconds }, 'media stream recorded');
      });
      sessions.set(run.id, session);
      ws.on('close', () => sockets.delete(ws));
      stream.attach(session);
      deps.onSession?.(session);
    });
  };

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server stops listening for socket errors on upgrade: without this, a caller
    // resetting the connection while the token and run are checked would crash the process.
    const dropOnError = () => socket.destroy();
    socket.on('error', dropOnError);
    open(request, socket, head, () => socket.off('error', dropOnError)).catch((error: unknown) => {
      if (error instanceof Refusal) {
        refuse(socket, error);
        return;
      }
      log.error({ err: error, url: redactMediaToken(request.url ?? '') }, 'media upgrade failed');
      socket.destroy();
    });
  });

  return {
    sessions,
    async close() {
      const ending = [...sessions.values()].map((session) => session.end());
      for (const ws of sockets) ws.close(1001, 'Server shutting down');
      await Promise.allSettled(ending);
      wss.close();
    },
  };
}
