import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { redactMediaToken } from '../../platform/log-redaction';
import type { Logger } from '../../platform/logger';
import type { AppState } from '../context';
import type { Metrics } from '../metrics';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when well-formed), a child logger carrying
 * it, one access-log line, and a duration observation labelled by route pattern (not raw path).
 */
export function requestContext(logger: Logger, metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      metrics.httpRequestDuration.observe(
        { method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) },
        seconds,
      );
      ctx.state.log.info(
        {
          method: ctx.method,
          path: redactMediaToken(ctx.path),
          status: ctx.status,
          duration_ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
    }
  };
}
