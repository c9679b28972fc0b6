import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A provider served on 127.0.0.1 (the bench's fakes, the speech adapters' tests): plain HTTP, and
 * WebSockets where it takes them.
 */
export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  httpUrl: string;
  /** `ws://127.0.0.1:<port>` */
  wsUrl: string;
  close(): Promise<void>;
}

export interface LocalServerHandlers {
  onRequest?: RequestListener;
  /** An HTTP status refuses the upgrade; null accepts it. */
  accept?: (request: IncomingMessage) => number | null;
  onSocket?: (socket: WebSocket, request: IncomingMessage) => void;
}

export async function startLocalServer(handlers: LocalServerHandlers): Promise<LocalServer> {
  const server: Server = createServer(handlers.onRequest ?? ((_req, res) => res.writeHead(404).end()));
  // No compression: the fakes must cost the machine as little as possible.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
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
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request's path without its query. */
export const pathOf = (request: IncomingMessage): string => new URL(request.url ?? '/', 'http://local').pathname;
