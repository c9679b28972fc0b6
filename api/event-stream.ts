import type { ParameterizedContext } from 'koa';
import { DomainError } from '../domain/errors';
import type { Logger } from '../platform/logger';
import type { AppState } from './context';
import { domainErrorStatus } from './middleware/error-handler';
import { isTemporalOutage } from './outages';

/** A comment line this often keeps proxies from closing a stream that waits on a slow reply. */
const KEEP_ALIVE_MS = 15_000;

/** An open `text/event-stream` answer: named events with JSON data, then the end. */
export interface EventStream {
  send(event: string, data: unknown): void;
  /** The reader went away: nothing more reaches it. */
  readonly gone: boolean;
  end(): void;
}

/** True when the request asks for a stream of events rather than one JSON answer. */
export const wantsEventStream = (ctx: ParameterizedContext<AppState>): boolean =>
  ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream';

/**
 * Answers 200 `text/event-stream` at once and writes events as they are sent, past Koa's own
 * answer (the handler keeps the request until `end`). `onGone` runs once if the reader leaves first.
 */
export function openEventStream(ctx: ParameterizedContext<AppState>, onGone: () => void): EventStream {
  const res = ctx.res;
  ctx.status = 200;
  ctx.respond = false;
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let gone = false;
  const keepAlive = setInterval(() => {
    if (!gone) res.write(': keep-alive\n\n');
  }, KEEP_ALIVE_MS);
  const leave = () => {
    clearInterval(keepAlive);
    if (gone || res.writableEnded) return;
    gone = true;
    onGone();
  };
  res.on('close', leave);
  return {
    send(event, data) {
      if (gone || res.writableEnded) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    get gone() {
      return gone;
    },
    end() {
      clearInterval(keepAlive);
      if (!res.writableEnded) res.end();
    },
  };
}

/** What an error after the stream began becomes: the `{status, detail}` of an `error` event. */
export function streamedError(error: unknown, log: Logger): { status: number; detail: string } {
  if (error instanceof DomainError) return { status: domainErrorStatus(error), detail: error.detail };
  if (isTemporalOutage(error)) return { status: 503, detail: 'Temporal is unavailable' };
  log.error({ err: error }, 'streamed answer failed');
  return { status: 500, detail: 'Internal Server Error' };
}
