import { startLocalServer, type LocalServer } from './local-server';

/** A customer's HTTP API that an agent's `http_api` tool calls: a bearer token, a fixed answer time. */
export interface FakeToolApiOptions {
  token: string;
  /** How long each answer takes: the tool's own time, which the bench leaves out of Switchboard's. */
  answerMs: number;
  /** The JSON body of every answer. */
  answer: object;
}

export interface FakeToolApi extends LocalServer {
  /** Requests answered 200 (right token, an `Idempotency-Key` and a signature). */
  readonly answered: number;
  /** Requests refused: a missing or wrong token, key or signature header. */
  readonly refused: number;
}

/**
 * `GET /slots/{day}`: answers `answer` after `answerMs`, when the request carries the credential's
 * bearer token, an `Idempotency-Key` and Switchboard's `webhook-signature`; 401 otherwise.
 */
export async function startFakeToolApi(options: FakeToolApiOptions): Promise<FakeToolApi> {
  let answered = 0;
  let refused = 0;
  const body = JSON.stringify(options.answer);
  const server = await startLocalServer({
    onRequest: (request, response) => {
      const { headers } = request;
      const signed =
        headers.authorization === `Bearer ${options.token}` &&
        typeof headers['idempotency-key'] === 'string' &&
        typeof headers['webhook-signature'] === 'string';
      if (request.method !== 'GET' || !request.url?.startsWith('/slots/') || !signed) {
        refused += 1;
        response.writeHead(signed ? 404 : 401, { 'Content-Type': 'application/json' }).end('{"error":"refused"}');
        return;
      }
      const timer = setTimeout(() => {
        answered += 1;
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
      }, options.answerMs);
      response.on('close', () => clearTimeout(timer));
    },
  });
  return {
    ...server,
    get answered() {
      return answered;
    },
    get refused() {
      return refused;
    },
  };
}
