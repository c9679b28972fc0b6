import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Middleware, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import { requiredScope } from './auth/scopes';
import { ErrorBody, ValidationErrorBody } from './schemas/common';
import { parseRequest } from './validation';
import type { AppState, AuthContext } from './context';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject;
export type SecurityScheme = 'SessionToken' | 'ApiKey';
type Security = readonly SecurityScheme[];

export interface RouteSpec<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  S extends Security = Security,
> {
  method: Method;
  /** OpenAPI style, relative to the API root: `/campaign/{campaign_id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A body the handler reads itself as a stream (a CSV upload), one schema per accepted content
   * type: documented here, never buffered or parsed before the handler (see `createApp`).
   */
  streamedBody?: { description: string; content: Record<string, z.ZodType> };
  /**
   * Accepted credentials, stated by every route: `[]` for a public one. Otherwise the app
   * authenticates the request before the handler runs, and the OpenAPI document lists the schemes.
   */
  security: S;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
}

export interface RouteInput<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  S extends Security = Security,
> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** The caller, on routes that declare credentials. */
  auth: S extends readonly [] ? undefined : AuthContext;
}

export type RouteContext = ParameterizedContext<AppState>;

export interface Route {
  spec: RouteSpec<AnyObject, AnyObject, z.ZodType>;
  /** Koa path: `{name}` becomes `:name`. */
  koaPath: string;
  handler: Middleware<AppState>;
  openapi: RouteConfig;
}

const standardErrors = {
  401: { description: 'Missing or invalid credentials', content: { 'application/json': { schema: ErrorBody } } },
  422: { description: 'Validation error', content: { 'application/json': { schema: ValidationErrorBody } } },
  503: { description: 'PostgreSQL or Temporal unavailable', content: { 'application/json': { schema: ErrorBody } } },
};

/**
 * A route is its zod schemas plus a handler: the same schemas validate the request, type the
 * handler's input and describe the route in the OpenAPI document.
 */
export function defineRoute<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, const S extends Security>(
  spec: RouteSpec<P, Q, B, S>,
  handle: (ctx: RouteContext, input: RouteInput<P, Q, B, S>) => Promise<void> | void,
): Route {
  const handler: Middleware<AppState> = async (ctx) => {
    const parsed = parseRequest({
      ...(spec.params ? { path: { schema: spec.params, value: ctx.params } } : {}),
      ...(spec.query ? { query: { schema: spec.query, value: ctx.query } } : {}),
      ...(spec.body ? { body: { schema: spec.body, value: (ctx.request as { body?: unknown }).body } } : {}),
    });
    const input = {
      params: parsed.path ?? {},
      query: parsed.query ?? {},
      body: parsed.body,
      auth: spec.security.length > 0 ? authenticatedCaller(ctx.state) : undefined,
    } as RouteInput<P, Q, B, S>;
    await handle(ctx, input);
  };
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }
        : {}),
    };
  }
  const hasInput = Boolean(spec.params ?? spec.query ?? spec.body);
  const openapi: RouteConfig = {
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    // An API key's entry names the scope it needs (OpenAPI 3.1 allows roles for any scheme).
    security: spec.security.map((scheme) => ({ [scheme]: scheme === 'ApiKey' ? [requiredScope(spec)] : [] })),
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      ...(spec.streamedBody
        ? {
            body: {
              required: true,
              description: spec.streamedBody.description,
              content: Object.fromEntries(
                Object.entries(spec.streamedBody.content).map(([type, schema]) => [type, { schema }]),
              ),
            },
          }
        : {}),
    },
    responses: {
      ...(spec.security.length > 0 ? { 401: standardErrors[401] } : {}),
      ...(hasInput ? { 422: standardErrors[422] } : {}),
      503: standardErrors[503],
      ...responses,
    },
  };
  return {
    spec,
    koaPath: spec.path.replace(/\{(\w+)\}/g, ':$1'),
    handler,
    openapi,
  };
}

/** A route that declares credentials must have been authenticated (see `createApp`); never run it otherwise. */
function authenticatedCaller(state: AppState): AuthContext {
  if (!state.auth) throw new Error('A route that declares credentials ran without authentication');
  return state.auth;
}

export const errorResponse = (description: string) => ({ description, schema: ErrorBody });
