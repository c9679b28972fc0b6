import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathOf, startLocalServer, type LocalServer } from './local-server';

/** An OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`) with deterministic vectors. */
export interface FakeEmbeddingsOptions {
  /** The bearer token it wants; undefined: any request is taken. */
  apiKey?: string;
  dimensions: number;
  /** Answers 500 to this many requests first (a flaky endpoint). */
  failFirst?: number;
  /** Waits this long before each answer, ms. */
  delayMs?: number;
}

export interface FakeEmbeddings extends LocalServer {
  /** Each request's number of inputs, in order of arrival. */
  readonly batches: number[];
  /** Requests answered 500 so far. */
  readonly failures: number;
}

const STOP_WORDS = new Set(
  'a an and are at be by can do does for from how i in is it of on or the to we what when where which who why will with you your'.split(
    ' ',
  ),
);

/** The index and sign of a feature in `dimensions`: the feature hashed, as feature hashing does. */
function bucket(feature: string, dimensions: number): [number, number] {
  const digest = createHash('sha256').update(feature).digest();
  return [digest.readUInt32BE(0) % dimensions, digest[4] === undefined || digest[4] < 128 ? 1 : -1];
}

/**
 * A text's vector: its words (lower case, stop words out, a plural's `s` off) and their character
 * trigrams, hashed into `dimensions`. Texts sharing words or spellings point the same way, as a
 * real model's do for a paraphrase: a misspelt or inflected word still lands near the right one.
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => !STOP_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word));
  for (const word of words) {
    const [index, sign] = bucket(`w:${word}`, dimensions);
    vector[index] = (vector[index] as number) + sign;
    const padded = `^${word}$`;
    for (let at = 0; at + 3 <= padded.length; at += 1) {
      const [trigram, trigramSign] = bucket(`t:${padded.slice(at, at + 3)}`, dimensions);
      vector[trigram] = (vector[trigram] as number) + 0.5 * trigramSign;
    }
  }
  return vector;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
}

const error = (response: ServerResponse, status: number, message: string, type: string) =>
  response
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ error: { message, type, param: null, code: null } }));

/**
 * `POST /v1/embeddings` as OpenAI answers it: `{object: 'list', data: [{object: 'embedding',
 * index, embedding}], model, usage}`, one vector per `input` string, in order. A wrong bearer token
 * answers 401 with OpenAI's error body, an input that is not a string or list of strings 400.
 */
export async function startFakeEmbeddings(options: FakeEmbeddingsOptions): Promise<FakeEmbeddings> {
  const batches: number[] = [];
  let failures = 0;
  const server = await startLocalServer({
    onRequest: (request, response) => {
      if (request.method !== 'POST' || pathOf(request) !== '/v1/embeddings') {
        response.writeHead(404).end();
        return;
      }
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        error(response, 401, 'Incorrect API key provided', 'invalid_request_error');
        return;
      }
      void readJson(request).then(
        async (body) => {
          const { input, model } = body as { input?: unknown; model?: unknown };
          const inputs = typeof input === 'string' ? [input] : input;
          if (
            !Array.isArray(inputs) ||
            !inputs.every((each) => typeof each === 'string') ||
            typeof model !== 'string'
          ) {
            error(response, 400, "'input' must be a string or an array of strings", 'invalid_request_error');
            return;
          }
          batches.push(inputs.length);
          if (failures < (options.failFirst ?? 0)) {
            failures += 1;
            error(response, 500, 'The server had an error while processing your request', 'server_error');
            return;
          }
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
          const tokens = inputs.reduce((sum, each) => sum + Math.ceil(each.length / 4), 0);
          response.writeHead(200, { 'Content-Type': 'application/json' }).end(
            JSON.stringify({
              object: 'list',
              data: inputs.map((each, index) => ({
                object: 'embedding',
                index,
                embedding: fakeEmbedding(each, options.dimensions),
              })),
              model,
              usage: { prompt_tokens: tokens, total_tokens: tokens },
            }),
          );
        },
        () => error(response, 400, 'We could not parse the JSON body of your request', 'invalid_request_error'),
      );
    },
  });
  return {
    ...server,
    batches,
    get failures() {
      return failures;
    },
  };
}
