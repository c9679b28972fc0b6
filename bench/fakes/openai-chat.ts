import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLocalServer, type LocalServer } from './local-server';

/** An OpenAI-compatible chat completions endpoint (`POST /v1/chat/completions`) with a fixed time to first token. */
export interface FakeChatOptions {
  apiKey: string;
  model: string;
  /** The reply's sentences: the first is the first content chunk, the rest follow at once. */
  sentences: string[];
  firstTokenMs: number;
  /** A tool the model calls on some caller turns, then answers from its result. */
  tool?: FakeToolCall;
}

export interface FakeToolCall {
  /** The function's name, as offered in the request's `tools`. */
  name: string;
  arguments: Record<string, unknown>;
  /** The caller turns (1, 2, ...: the user messages in the request) on which the model calls it. */
  turns: readonly number[];
  /** The reply once the tool's result came back (a `tool` message last). */
  sentences: string[];
}

interface ChatRequest {
  stream?: boolean;
  messages?: { role: string }[];
  tools?: { function?: { name?: string } }[];
}

const USAGE = { prompt_tokens: 120, completion_tokens: 16, total_tokens: 136 };

/**
 * `stream: true` (live calls) answers Server-Sent Events as OpenAI does: `firstTokenMs` after the
 * request, a chunk with the role and the first sentence (with its trailing space, so the first
 * sentence is complete at once), then in one write the other sentences, the `stop` chunk, the usage
 * chunk (`stream_options.include_usage`) and `[DONE]`. Without `stream`, one completion after the
 * same wait. With `tool`, a streamed request on one of its turns that offers the function answers
 * a call of it instead (its arguments in a second chunk, `finish_reason` `tool_calls`), and a
 * request that ends with the tool's result answers `tool.sentences`, each after the same wait.
 * A wrong bearer token answers 401 with OpenAI's error body.
 */
export function startFakeChat(options: FakeChatOptions): Promise<LocalServer> {
  return startLocalServer({
    onRequest: (request, response) => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      void readJson(request).then((body) => answer(request, response, body, options));
    },
  });
}

async function readJson(request: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}

/** What a streamed request gets: the tool's call, the reply from its result, or the plain reply. */
function replyTo(body: ChatRequest, options: FakeChatOptions): { sentences: string[]; call?: FakeToolCall } {
  const { tool } = options;
  if (!tool || !body.stream) return { sentences: options.sentences };
  const messages = body.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { sentences: tool.sentences };
  const turn = messages.filter((message) => message.role === 'user').length;
  const offered = (body.tools ?? []).some((offer) => offer.function?.name === tool.name);
  return offered && tool.turns.includes(turn) ? { sentences: [], call: tool } : { sentences: options.sentences };
}

function answer(request: IncomingMessage, response: ServerResponse, body: ChatRequest, options: FakeChatOptions) {
  if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
    response.writeHead(401, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
    );
    return;
  }
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const reply = replyTo(body, options);
  const texts = reply.sentences.map((sentence, index) =>
    index < reply.sentences.length - 1 ? `${sentence} ` : sentence,
  );
  const timer = setTimeout(() => {
    if (!body.stream) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: options.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: texts.join('') },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: USAGE,
        }),
      );
      return;
    }
    const chunk = (choices: object[], extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: options.model, choices, ...extra })}\n\n`;
    const delta = (content: object, finish: string | null = null) => ({
      index: 0,
      delta: content,
      finish_reason: finish,
    });
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    if (reply.call) {
      const call = { index: 0, id: `call_${randomUUID()}`, type: 'function' };
      response.write(
        chunk([
          delta({
            role: 'assistant',
            content: null,
            tool_calls: [{ ...call, function: { name: reply.call.name, arguments: '' } }],
          }),
        ]),
      );
      response.end(
        chunk([delta({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(reply.call.arguments) } }] })]) +
          chunk([delta({}, 'tool_calls')]) +
          chunk([], { usage: USAGE }) +
          'data: [DONE]\n\n',
      );
      return;
    }
    response.write(chunk([delta({ role: 'assistant', content: texts[0] ?? '' })]));
    response.end(
      texts
        .slice(1)
        .map((text) => chunk([delta({ content: text })]))
        .join('') +
        chunk([delta({}, 'stop')]) +
        chunk([], { usage: USAGE }) +
        'data: [DONE]\n\n',
    );
  }, options.firstTokenMs);
  response.on('close', () => clearTimeout(timer));
}
