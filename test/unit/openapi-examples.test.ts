import { createRoutes } from '../../api/app';
import { createAuthServices } from '../../api/auth/auth-services';
import { requiredScope } from '../../api/auth/scopes';
import type { ApiDeps } from '../../api/context';
import { createMetrics } from '../../api/metrics';
import { buildOpenApiDocument } from '../../api/openapi';
import type { Route } from '../../api/route';
import { createDataSource } from '../../entities/data-source';
import { parseConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import type { Client } from '@temporalio/client';
import type { z } from 'zod';

/**
 * The document's examples are the first thing a reader copies and the first requests the contract
 * fuzzer sends: every operation has them, and each one parses with the very schema that validates
 * the request or describes the answer, so an example cannot drift from the interface.
 */

// Building the routes opens nothing: the data source is never initialized, Temporal never called.
const config = parseConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  SESSION_SECRET: 'test-session-secret-of-at-least-32-characters',
});
const deps: ApiDeps = {
  config,
  dataSource: createDataSource({ url: 'postgres://switchboard@127.0.0.1:1/unused' }),
  temporal: {} as Client,
  logger: createLogger('silent', 'openapi-examples-test'),
  metrics: createMetrics(),
};
const routes = createRoutes(deps, createAuthServices(deps));
const document = buildOpenApiDocument(routes, 'http://127.0.0.1:8000');

interface SchemaObject {
  $ref?: string;
  example?: unknown;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  [key: string]: unknown;
}
interface MediaTypeObject {
  schema?: SchemaObject;
  example?: unknown;
}
interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: SchemaObject;
  content?: Record<string, MediaTypeObject>;
}
interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, MediaTypeObject> };
  responses: Record<string, { content?: Record<string, MediaTypeObject> }>;
}

const components = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
const resolve = (schema: SchemaObject | undefined): SchemaObject | undefined =>
  schema?.$ref ? components[schema.$ref.replace('#/components/schemas/', '')] : schema;

function operationOf({ spec }: Route): OperationObject {
  const item = (document.paths ?? {})[spec.path] as Record<string, OperationObject> | undefined;
  const operation = item?.[spec.method];
  if (!operation) throw new Error(`${spec.operationId} is not in the document`);
  return operation;
}

/** What a parse failure says, short enough to read in a test report. */
function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/** The example of a parameter, as a client puts it on the wire (JSON content as its text). */
function parameterExample(parameter: ParameterObject): unknown {
  const json = parameter.content?.['application/json'];
  if (json) return json.example === undefined ? undefined : JSON.stringify(json.example);
  const schema = resolve(parameter.schema);
  return schema?.example ?? schema?.enum?.[0];
}

const cases = routes.map((route) => [route.spec.operationId, route] as const);

test('the document describes every route', () => {
  expect(cases.length).toBeGreaterThan(50);
});

describe.each(cases)('%s', (_operationId, route) => {
  const { spec } = route;
  const operation = operationOf(route);

  test('every request body has an example the route accepts', () => {
    const bodies: [string, z.ZodType][] = [
      ...(spec.body ? [['application/json', spec.body] as [string, z.ZodType]] : []),
      ...Object.entries(spec.streamedBody?.content ?? {}),
      ...Object.entries(spec.providerBody?.content ?? {}),
    ];
    for (const [contentType, schema] of bodies) {
      const example = operation.requestBody?.content[contentType]?.example;
      expect({ contentType, hasExample: example !== undefined }).toEqual({ contentType, hasExample: true });
      expect({ contentType, problems: problems(schema, example) }).toEqual({ contentType, problems: [] });
    }
  });

  test('every path parameter has an example, and the examples parse with the route’s schemas', () => {
    const examples: Record<'path' | 'query' | 'header', Record<string, unknown>> = { path: {}, query: {}, header: {} };
    for (const parameter of operation.parameters ?? []) {
      const example = parameterExample(parameter);
      if (parameter.in === 'path') expect({ [parameter.name]: example }).not.toEqual({ [parameter.name]: undefined });
      if (example !== undefined) examples[parameter.in][parameter.name] = example;
    }
    if (spec.params) expect(problems(spec.params, examples.path)).toEqual([]);
    if (spec.query) expect(problems(spec.query, examples.query)).toEqual([]);
    if (spec.headers) expect(problems(spec.headers, examples.header)).toEqual([]);
  });

  test('every success answer has an example its schema accepts', () => {
    const successes = Object.entries(spec.responses).filter(([status]) => Number(status) < 300);
    expect(successes.length).toBeGreaterThan(0);
    for (const [status, response] of successes) {
      if (!response.schema) continue;
      const schemas: [string, z.ZodType][] = [
        [response.contentType ?? 'application/json', response.schema],
        ...Object.entries(response.otherContent ?? {}),
      ];
      for (const [contentType, schema] of schemas) {
        const media = operation.responses[status]?.content?.[contentType];
        // Audio has no example a document can carry.
        if (resolve(media?.schema)?.format === 'binary') continue;
        const where = `${status} ${contentType}`;
        expect({ where, hasExample: media?.example !== undefined }).toEqual({ where, hasExample: true });
        expect({ where, problems: problems(schema, media?.example) }).toEqual({ where, problems: [] });
      }
    }
  });
});

/** Every schema object a request body uses, through the components it refers to. */
function requestSchemas(schema: SchemaObject | undefined, seen = new Set<string>()): SchemaObject[] {
  if (!schema || typeof schema !== 'object') return [];
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return [];
    seen.add(schema.$ref);
    return requestSchemas(resolve(schema), seen);
  }
  const found = [schema];
  for (const [key, value] of Object.entries(schema)) {
    if (['example', 'examples', 'default', 'enum', 'const'].includes(key)) continue;
    const children = key === 'properties' ? Object.values(value as object) : Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (child && typeof child === 'object') found.push(...requestSchemas(child as SchemaObject, seen));
    }
  }
  return found;
}

test('a request field with a default is optional in generated types: its default is stated in words', () => {
  // Generators make a component property with `default` required (openapi-typescript's
  // defaultNonNullable), so no schema a request body uses carries one.
  const withDefault: string[] = [];
  for (const route of routes) {
    for (const media of Object.values(operationOf(route).requestBody?.content ?? {})) {
      for (const schema of requestSchemas(media.schema)) {
        if (schema.default !== undefined) withDefault.push(`${route.spec.operationId}: ${JSON.stringify(schema)}`);
      }
    }
  }
  expect(withDefault).toEqual([]);
  const scope = components.CreateApiKeyRequest?.properties?.scope;
  expect(scope?.description).toContain('Default: `"admin"`.');
  expect(components.CreateApiKeyRequest?.required).toEqual(['name']);
  // Answers keep `default`: a stored agent's nodes always carry those fields.
  expect(components.StartCallNode?.properties?.position).toMatchObject({ default: { x: 0, y: 0 } });
  expect(components.StartCallNodeInput?.properties?.position).not.toHaveProperty('default');
});

describe('documented statuses', () => {
  interface Answer {
    headers?: Record<string, { required?: boolean; schema?: SchemaObject }>;
  }
  const answers = (route: Route) => operationOf(route).responses as Record<string, Answer>;

  test('every operation that throttles (or applies frequency caps) documents 429 with Retry-After, and only those', () => {
    const throttled = routes.filter((route) => answers(route)['429']).map(({ spec }) => spec.operationId);
    expect(throttled.sort()).toEqual(['callByAgentUuid', 'callByTriggerPath', 'changePassword', 'logIn', 'signUp']);
    for (const route of routes.filter((candidate) => answers(candidate)['429'])) {
      expect(answers(route)['429']?.headers?.['Retry-After']).toMatchObject({
        required: true,
        schema: { type: 'integer', minimum: 1 },
      });
    }
  });

  test('every operation an API key below its scope can call documents 403', () => {
    const missing = routes
      .filter(({ spec }) => spec.security.includes('ApiKey') && requiredScope(spec) !== 'read')
      .filter((route) => !answers(route)['403'])
      .map(({ spec }) => spec.operationId);
    expect(missing).toEqual([]);
  });
});
