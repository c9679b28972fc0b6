import type { Middleware } from 'koa';
import { isDataException } from '../../entities/db-errors';
import {
  ConflictError,
  DomainError,
  InvalidError,
  NotFoundError,
  RefusedError,
  TooSoonError,
  UpstreamError,
  ValidationError,
} from '../../domain/errors';
import { AppError } from '../errors';
import { isDatabaseOutage, isTemporalOutage } from '../outages';
import type { AppState } from '../context';

const statusText: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Request body too large',
  415: 'Unsupported Media Type',
  501: 'Not Implemented',
};

/** The status of each domain refusal. */
export function domainErrorStatus(error: DomainError): number {
  if (error instanceof InvalidError) return 400;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof RefusedError) return 422;
  if (error instanceof TooSoonError) return 429;
  if (error instanceof UpstreamError) return 502;
  return 500;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

/**
 * The one place that writes error bodies. Known errors become `{detail}` with their status,
 * dependency outages 503, anything else a logged 500 without internals.
 */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      // Unmatched routes (404) and the router's 405/501 (with `Allow`) arrive without a body.
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        const status = ctx.status;
        ctx.body = { detail: statusText[status] ?? 'Error' };
        ctx.status = status;
      }
    } catch (error: unknown) {
      const log = ctx.state.log;
      if (error instanceof ValidationError) {
        ctx.status = 422;
        ctx.body = { detail: error.issues };
        return;
      }
      if (error instanceof DomainError) {
        const status = domainErrorStatus(error);
        ctx.status = status;
        if (error instanceof TooSoonError) ctx.set('Retry-After', String(error.retryAfterSeconds));
        ctx.body = { detail: error.detail };
        if (status >= 500) log.warn({ err: error }, error.detail);
        return;
      }
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = { detail: error.detail };
        if (error.status >= 500) log.warn({ err: error }, error.detail);
        return;
      }
      if (isDataException(error)) {
        // The schemas bound what they can; a value PostgreSQL still refuses is a validation problem.
        log.info({ err: error }, 'request value refused by the database');
        ctx.status = 422;
        ctx.body = { detail: [{ loc: ['body'], msg: 'A value is out of range or not storable', type: 'value_error' }] };
        return;
      }
      if (isDatabaseOutage(error)) {
        log.error({ err: error }, 'database unavailable');
        ctx.status = 503;
        ctx.body = { detail: 'Database is unavailable' };
        return;
      }
      if (isTemporalOutage(error)) {
        log.error({ err: error }, 'temporal unavailable');
        ctx.status = 503;
        ctx.body = { detail: 'Temporal is unavailable' };
        return;
      }
      const httpError = error as HttpLikeError;
      const status = httpError.status ?? httpError.statusCode;
      // Errors raised by Koa, the router and the body parser (http-errors) carry a client status.
      if (typeof status === 'number' && status >= 400 && status < 500) {
        ctx.status = status;
        ctx.body = { detail: statusText[status] ?? (httpError.expose ? httpError.message : 'Bad Request') };
        return;
      }
      log.error({ err: error }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  };
}
