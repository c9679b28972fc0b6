import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** A local provider: `accept` answers the upgrade (status to refuse), `onSocket` speaks the protocol. */
export interface FakeProvider {
  url: string;
  httpUrl: string;
  server: Server;
  close(): Promise<void>;
}

export async function startFakeProvider(handlers: {
  accept?: (request: IncomingMessage) => number | null;
  onSocket?: (socket: WebSocket, request: IncomingMessage) => void;
  onHttp?: Parameters<typeof createServer>[1];
}): Promise<FakeProvider> {
  const server = createServer(handlers.onHttp ?? ((_req, res) => res.writeHead(404).end()));
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    const refused = handlers.accept?.(request) ?? null;
    if (refused !== null) {
      socket.end(`HTTP/1.1 ${refused} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => handlers.onSocket?.(ws, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves when `predicate` holds, polling; fails the test after `ms`. */
export async function until(predicate: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A 440 Hz tone, PCM16 mono. */
export function tone(sampleRate: number, seconds: number): Int16Array {
  const samples = new Int16Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  return samples;
}
