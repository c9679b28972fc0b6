import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake: a message's content, an error status, or a delay first. */
export interface ScriptedAnswer {
  content?: string;
  usage?: [prompt: number, completion: number, total: number];
  status?: number;
  /** Milliseconds to wait before answering (a timeout test waits longer than the client). */
  delayMs?: number;
  /** A streamed answer sends its first chunk, then waits for this before the rest. */
  holdAfterFirstChunk?: Promise<void>;
  /** Answers only once this settles: a test holds the request while it looks at what happens meanwhile. */
  heldUntil?: Promise<unknown>;
}

export interface ReceivedRequest {
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format?: unknown;
    stream?: boolean;
  };
  headers: IncomingHttpHeaders;
}

/** A content's word-sized pieces, each with the spaces after it: as a model streams its tokens. */
const streamedPieces = (content: string): string[] => content.match(/\S+\s*/g) ?? [];

/**
 * A local OpenAI-compatible chat completions server (`POST /v1/chat/completions`) answering each
 * request with the next scripted answer, in the API's wire format; an exhausted script answers 500.
 * A request with `stream: true` gets the content as server-sent chunks, a piece per word, then the
 * usage chunk (`stream_options.include_usage`) and `[DONE]`, as OpenAI streams.
 */
export class FakeLanguageModel {
  readonly received: ReceivedRequest[] = [];
  private script: ScriptedAnswer[] = [];
  private server!: Server;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404).end();
          return;
        }
        this.received.push({
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedRequest['body'],
          headers: req.headers,
        });
        const next = this.script.shift();
        const answer = () => {
          if (res.destroyed) return;
          if (!next || next.status) {
            res
              .writeHead(next?.status ?? 500, { 'content-type': 'application/json' })
              .end(JSON.stringify({ error: { message: next ? 'model overloaded' : 'script exhausted' } }));
            return;
          }
          const [prompt, completion, total] = next.usage ?? [10, 5, 15];
          const request = this.received.at(-1)?.body;
          if (request?.stream) {
            void streamAnswer(res, next, { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total });
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: 'chatcmpl-fake',
              object: 'chat.completion',
              created: 0,
              model: 'fake-model',
              choices: [
                { index: 0, message: { role: 'assistant', content: next.content ?? null }, finish_reason: 'stop' },
              ],
              usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total },
            }),
          );
        };
        if (next?.heldUntil) void next.heldUntil.finally(answer);
        else if (next?.delayMs) setTimeout(answer, next.delayMs);
        else answer();
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  /** The answers to the next requests, in order. */
  answer(...answers: ScriptedAnswer[]): void {
    this.script.push(...answers);
  }

  reset(): void {
    this.script = [];
    this.received.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A scripted answer as OpenAI's `stream: true` answer: chunks of content, `stop`, the usage chunk, `[DONE]`. */
async function streamAnswer(
  res: ServerResponse,
  answer: ScriptedAnswer,
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number },
): Promise<void> {
  const chunk = (choices: object[], extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices, ...extra })}\n\n`;
  const delta = (content: object, finish: string | null = null) => ({
    index: 0,
    delta: content,
    finish_reason: finish,
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const [first = '', ...rest] = streamedPieces(answer.content ?? '');
  res.write(chunk([delta({ role: 'assistant', content: first })]));
  if (answer.holdAfterFirstChunk) await answer.holdAfterFirstChunk;
  if (res.destroyed) return;
  for (const piece of rest) res.write(chunk([delta({ content: piece })]));
  res.end(chunk([delta({}, 'stop')]) + chunk([], { usage }) + 'data: [DONE]\n\n');
}
