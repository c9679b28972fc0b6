import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import { parseJson } from '../../platform/json';

/**
 * One provider's media protocol on one socket: the transport (agent audio out) exists before the
 * session, which needs it; `attach` then feeds the socket's frames into the session.
 */
export interface ProviderStream {
  transport: MediaTransport;
  attach(session: MediaSession): void;
}

export type ProviderStreamFactory = (socket: WebSocket, log: Logger) => ProviderStream;

export function rawBytes(data: WebSocket.RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data));
}

/** A text frame's JSON, or undefined for binary frames and text that is not JSON. */
export const jsonOf = (data: WebSocket.RawData, isBinary: boolean): unknown =>
  isBinary ? undefined : parseJson(rawBytes(data).toString('utf8'));

/** Ends the session when the socket closes (every protocol's last word), logging socket errors. */
export function endOnClose(socket: WebSocket, session: MediaSession, log: Logger, protocol: string): () => void {
  const finish = () => {
    session
      .end()
      .catch((error: unknown) => log.error({ err: error, runId: session.runId }, 'media session end failed'));
  };
  socket.on('close', finish);
  socket.on('error', (error) => log.warn({ err: error, runId: session.runId }, `${protocol} media socket error`));
  return finish;
}

/** Sends only while the socket is open: agent audio racing a hang-up is dropped, not thrown. */
export function sendIfOpen(socket: WebSocket, frame: string | Buffer): void {
  if (socket.readyState === socket.OPEN) socket.send(frame);
}
