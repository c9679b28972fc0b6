import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Middleware, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import { ErrorBody, ValidationErrorBody } from './schemas/common';
import { parseInput } from './validation';
import type { AppState } from './context';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject;
export type SecurityScheme = 'SessionToken' | 'ApiKey';

export interface RouteSpec<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  method: Method;
  /** OpenAPI style, relative to the API root: `/campaign/{campaign_id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** Accepted credentials; empty or absent means the route needs none. */
  security?: SecurityScheme[];
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
}

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
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
  422: { description: 'Validation error', content: { 'application/json': { schema: ValidationErrorBody } } },
  503: { description: 'PostgreSQL or Temporal unavailable', content: { 'application/json': { schema: ErrorBody } } },
};

/**
 * A route is its zod schemas plus a handler: the same schemas validate the request, type the
 * handler's input and describe the route in the OpenAPI document.
 */
export function defineRoute<P extends AnyObject, Q extends AnyObject, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
  handle: (ctx: RouteContext, input: RouteInput<P, Q, B>) => Promise<void> | void,
): Route {
  const handler: Middleware<AppState> = async (ctx) => {
    const input = {
      params: spec.params ? parseInput(spec.params, ctx.params, 'path') : {},
      query: spec.query ? parseInput(spec.query, ctx.query, 'query') : {},
      body: spec.body ? parseInput(spec.body, (ctx.request as { body?: unknown }).body, 'body') : undefined,
    } as RouteInput<P, Q, B>;
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
    security: spec.security?.map((scheme) => ({ [scheme]: [] })) ?? [],
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses: { ...(hasInput ? { 422: standardErrors[422] } : {}), 503: standardErrors[503], ...responses },
  };
  return {
    spec,
    koaPath: spec.path.replace(/\{(\w+)\}/g, ':$1'),
    handler,
    openapi,
  };
}

export const errorResponse = (description: string) => ({ description, schema: ErrorBody });
