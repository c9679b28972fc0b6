import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Middleware, ParameterizedContext } from 'koa';
import type { CredentialVerifier } from '../auth/credentials';
import type { AppState } from '../context';

const tracer = trace.getTracer('switchboard.api');

const BEARER = /^Bearer +(\S+)$/i;

/** The request carries a valid API key or session token (whether or not its route asks for one). */
async function hasValidCredentials(
  ctx: ParameterizedContext<AppState>,
  verifier: CredentialVerifier,
): Promise<boolean> {
  const apiKey = ctx.get('X-API-Key').trim();
  const token = BEARER.exec(ctx.get('Authorization').trim())?.[1];
  try {
    if (apiKey) await verifier.byApiKey(apiKey);
    else if (token) await verifier.bySessionToken(token);
    else return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * One server span per request, joined to the caller's trace only when the caller sends
 * `traceparent` with a valid API key or session token: anyone else could pick the trace id our
 * spans, logs and workflows are filed under, or push baggage into them, so they start a new trace. Everything the request does runs inside it: its log lines carry the trace id, and
 * the workflows it starts continue the trace. Named by route pattern once the router has matched one.
 */
export function traceRequest(verifier: CredentialVerifier): Middleware<AppState> {
  return async (ctx, next) => {
    let parent = ROOT_CONTEXT;
    if (ctx.get('traceparent')) {
      const claimed = propagation.extract(ROOT_CONTEXT, ctx.headers);
      if (await hasValidCredentials(ctx, verifier)) parent = claimed;
      else ctx.state.claimedTraceContext = claimed;
    }
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path } },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      span.recordException(error as Error);
      throw error;
    } finally {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

/**
 * Runs `work` (what a provider webhook does once its signature checked out) in a span continuing
 * the trace context the provider sent, so a call's trace follows its status events back from the
 * provider. Without one it runs in the request's own span.
 */
export function withSignedCallerTrace<T>(ctx: { state: AppState }, name: string, work: () => Promise<T>): Promise<T> {
  const claimed = ctx.state.claimedTraceContext;
  if (!claimed || !trace.getSpanContext(claimed)) return work();
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL }, claimed, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
