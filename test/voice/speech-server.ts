import type { IncomingMessage, RequestListener } from 'node:http';
import type { WebSocket } from 'ws';
import { startLocalServer } from '../../bench/fakes/local-server';

/** A local provider: `accept` answers the upgrade (status to refuse), `onSocket` speaks the protocol. */
export interface FakeProvider {
  /** `ws://127.0.0.1:<port>` */
  url: string;
  httpUrl: string;
  close(): Promise<void>;
}

/** The benchmark's local provider server, as the speech adapters' tests address it. */
export async function startFakeProvider(handlers: {
  accept?: (request: IncomingMessage) => number | null;
  onSocket?: (socket: WebSocket, request: IncomingMessage) => void;
  onHttp?: RequestListener;
}): Promise<FakeProvider> {
  const server = await startLocalServer({ ...handlers, onRequest: handlers.onHttp });
  return { url: server.wsUrl, httpUrl: server.httpUrl, close: () => server.close() };
}

/** A 440 Hz tone, PCM16 mono. */
export function tone(sampleRate: number, seconds: number): Int16Array {
  const samples = new Int16Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  return samples;
}
