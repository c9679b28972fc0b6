import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake provider received it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake provider answers; `hang` never answers, to exercise the adapter's timeout. */
export type FakeAnswer = { status: number; body?: unknown; contentType?: string } | 'hang';

/**
 * A local HTTP server standing in for a provider API: tests queue the answers, point the adapter's
 * `apiBaseUrl` at `url`, and then assert on the recorded requests. A request with no queued answer gets a
 * 599, so an unexpected call fails the test loudly.
 */
export class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  private readonly answers: FakeAnswer[] = [];

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const recorded = {
        method: request.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.record(recorded, response);
    });
  });

  private constructor() {}

  static async start(): Promise<FakeProviderServer> {
    const fake = new FakeProviderServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The origin to pass as the adapter's `apiBaseUrl`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues answers, given in the order the requests will arrive. */
  answer(...answers: FakeAnswer[]): void {
    this.answers.push(...answers);
  }

  /** The only recorded request, failing when there is not exactly one. */
  onlyRequest(): RecordedRequest {
    if (this.requests.length !== 1) throw new Error(`expected one request, got ${this.requests.length}`);
    return this.requests[0]!;
  }

  reset(): void {
    this.requests.length = 0;
    this.answers.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private record(request: RecordedRequest, response: ServerResponse): void {
    this.requests.push(request);
    const answer = this.answers.shift() ?? { status: 599, body: { message: 'no answer queued for this request' } };
    if (answer === 'hang') return;
    if (answer.body === undefined) {
      response.writeHead(answer.status).end();
      return;
    }
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(text);
  }
}
