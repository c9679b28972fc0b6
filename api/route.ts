import { getOpenApiMetadata, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Middleware, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import { UnsupportedMediaTypeError } from './errors';
import { requiredScope, type ApiKeyScope } from './auth/scopes';
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
  /** Stable and camelCase: generated clients name their methods after it. */
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  params?: P;
  query?: Q;
  /** Request headers the route reads, validated like the rest (names as documented, any case). */
  headers?: AnyObject;
  /** A JSON body (`application/json` only: any other content type answers 415). */
  body?: B;
  /** A documented example of `body`; by default the example declared on its schema. */
  bodyExample?: unknown;
  /**
   * A body the handler reads itself as a stream (a CSV upload), one schema per accepted content
   * type: documented here, never buffered or parsed before the handler (see `createApp`).
   */
  streamedBody?: { description: string; content: Record<string, z.ZodType> };
  /**
   * A body the handler reads itself from the parsed request (a provider webhook, whose signature
   * covers the raw bytes), one schema per accepted content type: documented here only.
   */
  providerBody?: { description: string; required: boolean; content: Record<string, z.ZodType> };
  /**
   * Accepted credentials, stated by every route: `[]` for a public one. Otherwise the app
   * authenticates the request before the handler runs, and the OpenAPI document lists the schemes.
   */
  security: S;
  responses: Record<number, ResponseSpec>;
}

type HeaderSchema = { type: 'string' | 'integer'; pattern?: string; minimum?: number };

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Further content types the status may answer, each with its schema. */
  otherContent?: Record<string, z.ZodType>;
  /** A documented example of the body; by default the example declared on `schema`. */
  example?: unknown;
  /** Response headers, each with a JSON Schema of its value. */
  headers?: Record<string, { description: string; schema: HeaderSchema; required?: boolean }>;
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

const errorContent = { 'application/json': { schema: ErrorBody, example: { detail: 'Not Found' } } };

const standardErrors = {
  401: {
    description: 'Missing or invalid credentials',
    headers: {
      'WWW-Authenticate': { description: 'The scheme to authenticate with: `Bearer`.', schema: { type: 'string' } },
    },
    content: { 'application/json': { schema: ErrorBody, example: { detail: 'Not authenticated' } } },
  },
  413: { description: 'The body is larger than the limit', content: errorContent },
  // Node answers it before any route runs, with no body: documented where a long query can cause it.
  431: { description: 'The request line and headers are larger than the server takes (a very long query)' },
  415: { description: 'A content type this operation does not take', content: errorContent },
  422: {
    description: 'Validation error: one `{loc, msg, type}` per problem',
    content: {
      'application/json': {
        schema: ValidationErrorBody,
        example: { detail: [{ loc: ['body', 'name'], msg: 'Invalid input: expected string', type: 'missing' }] },
      },
    },
  },
  503: { description: 'PostgreSQL or Temporal unavailable', content: errorContent },
} satisfies RouteConfig['responses'];

/** What an API key whose scope is below `needed` answers; session tokens act as `admin`. */
const scopeRefused = (needed: ApiKeyScope) => ({
  description: `The API key's scope does not cover \`${needed}\``,
  content: {
    'application/json': {
      schema: ErrorBody,
      example: { detail: `This API key's scope is read; this route needs ${needed}` },
    },
  },
});

/** Headers some statuses always carry, documented wherever the status is. */
const headersByStatus: Record<number, ResponseSpec['headers']> = {
  429: {
    'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
  },
  416: {
    'Content-Range': {
      description: '`bytes */<size>`: the size of the resource.',
      schema: { type: 'string', pattern: '^bytes \\*/\\d+$' },
    },
  },
};

/**
 * The example declared on a schema (`.openapi({ example })`), repeated on the operation's media type:
 * generators, documentation viewers and the contract fuzzer read examples there.
 */
function exampleOf(schema: z.ZodType | undefined): unknown {
  return schema ? getOpenApiMetadata(schema)?.example : undefined;
}

/** A media type object with the schema's example, when it has one. */
function mediaType(schema: z.ZodType, example: unknown = exampleOf(schema)) {
  return { schema, ...(example === undefined ? {} : { example }) };
}

/** The JSON body of a request, or undefined when it has none; 415 for any other content type. */
function jsonBody(ctx: ParameterizedContext<AppState>): unknown {
  const { headers } = ctx.req;
  const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
  if (!hasBody) return undefined;
  if (!ctx.is('application/json')) throw new UnsupportedMediaTypeError('The body must be application/json');
  return (ctx.request as { body?: unknown }).body;
}

function requestHeaders(ctx: ParameterizedContext<AppState>, schema: AnyObject): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, ctx.get(name) || undefined]));
}

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
      ...(spec.headers ? { header: { schema: spec.headers, value: requestHeaders(ctx, spec.headers) } } : {}),
      ...(spec.body ? { body: { schema: spec.body, value: jsonBody(ctx) } } : {}),
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
    const headers = { ...headersByStatus[Number(status)], ...response.headers };
    const { schema } = response;
    const example =
      response.example ?? exampleOf(schema) ?? (schema === ErrorBody ? { detail: response.description } : undefined);
    responses[status] = {
      description: response.description,
      ...(Object.keys(headers).length > 0
        ? {
            headers: Object.fromEntries(
              Object.entries(headers).map(([name, header]) => [
                name,
                { description: header.description, required: header.required ?? true, schema: header.schema },
              ]),
            ),
          }
        : {}),
      ...(schema
        ? {
            content: {
              [response.contentType ?? 'application/json']: mediaType(schema, example),
              ...Object.fromEntries(
                Object.entries(response.otherContent ?? {}).map(([type, other]) => [type, mediaType(other)]),
              ),
            },
          }
        : {}),
    };
  }
  const hasInput = Boolean(spec.params ?? spec.query ?? spec.body ?? spec.headers);
  // Every key may read; only a write can meet a key whose scope is too low.
  const scope = requiredScope(spec);
  const scopeCanRefuse = (spec.security as Security).includes('ApiKey') && scope !== 'read';
  const takesBody = Boolean(spec.body ?? spec.streamedBody ?? spec.providerBody);
  const openapi: RouteConfig = {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    // An API key's entry names the scope it needs (OpenAPI 3.1 allows roles for any scheme).
    security: spec.security.map((scheme) => ({ [scheme]: scheme === 'ApiKey' ? [scope] : [] })),
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(spec.body
        ? {
            body: {
              // A body schema that is optional as a whole (`.optional()`) may be left out entirely.
              required: !spec.body.safeParse(undefined).success,
              content: {
                'application/json': mediaType(spec.body, spec.bodyExample),
              },
            },
          }
        : {}),
      ...(spec.providerBody
        ? {
            body: {
              required: spec.providerBody.required,
              description: spec.providerBody.description,
              content: Object.fromEntries(
                Object.entries(spec.providerBody.content).map(([type, schema]) => [type, mediaType(schema)]),
              ),
            },
          }
        : {}),
      ...(spec.streamedBody
        ? {
            body: {
              required: true,
              description: spec.streamedBody.description,
              content: Object.fromEntries(
                Object.entries(spec.streamedBody.content).map(([type, schema]) => [type, mediaType(schema)]),
              ),
            },
          }
        : {}),
    },
    responses: {
      ...(spec.security.length > 0 ? { 401: standardErrors[401] } : {}),
      ...(scopeCanRefuse ? { 403: scopeRefused(scope) } : {}),
      ...(hasInput || takesBody ? { 422: standardErrors[422] } : {}),
      ...(takesBody ? { 413: standardErrors[413], 415: standardErrors[415] } : {}),
      ...(spec.query ? { 431: standardErrors[431] } : {}),
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
