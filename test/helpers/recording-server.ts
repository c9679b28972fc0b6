import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the recording server received it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: string;
}

export interface RecordingServer {
  /** Every request received, oldest first (the same array for the whole file). */
  readonly seen: SeenRequest[];
  /** `http://127.0.0.1:<port>`, once listening. */
  readonly baseUrl: string;
}

/**
 * A local HTTP server for the file's tests (listening from `beforeAll`, closed in `afterAll`) that
 * records each request whole and answers it with `respond`, by path.
 */
export function useRecordingServer(respond: (path: string, res: ServerResponse) => void): RecordingServer {
  const seen: SeenRequest[] = [];
  let server: Server | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: `${baseUrl}${req.url ?? ''}`,
          headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
          body,
        });
        respond(req.url ?? '', res);
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return {
    seen,
    get baseUrl() {
      return baseUrl;
    },
  };
}
