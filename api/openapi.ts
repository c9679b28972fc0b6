import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Route } from './route';
import { RunFilters } from './schemas/runs';
import { version } from '../platform/version';

export const API_PREFIX = '/api/v1';

/** The OpenAPI 3.1 document, generated from the same route specs that validate requests. */
export function buildOpenApiDocument(routes: Route[], publicBaseUrl: string): OpenAPIObject {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'An organization API key (`sbk_...`). Wins when a bearer token is sent too. Each key has a scope: ' +
      '`read` (every GET), `calls` (also placing calls and creating and running campaigns) or `admin` ' +
      '(everything, including agents, telephony and keys). The scope an operation needs is listed in its ' +
      '`security` entry; a key without it answers 403.',
  });
  registry.registerComponent('securitySchemes', 'SessionToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A session token from `POST /api/v1/auth/login`: full access, until it expires or its user logs out ' +
      '(`POST /auth/logout`) or changes the password (`POST /auth/password`), which revoke every token of the user.',
  });
  registry.register('RunFilters', RunFilters);
  for (const route of routes) registry.registerPath(route.openapi);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version,
      contact: { name: 'Switchboard maintainers' },
      // The repository declares no license yet; the document says so rather than guess one.
      license: { name: 'No license granted yet (all rights reserved)' },
      description:
        'Self-hosted voice-agent calling service. Errors answer `{detail}`; validation errors are 422 ' +
        'with `detail: [{loc, msg, type}]`; unknown routes 404, wrong methods 405 with `Allow`, bodies over ' +
        'the limit 413, JSON bodies sent as another content type 415, PostgreSQL or Temporal unreachable 503. ' +
        'Ids are 1 to 2147483647; text never contains U+0000.',
    },
    servers: [{ url: `${publicBaseUrl.replace(/\/$/, '')}${API_PREFIX}` }],
    tags: TAGS,
  });
  typeJsonQueryParameters(document);
  documentRequestDefaults(document);
  return document;
}

type OpenAPIObject = ReturnType<OpenApiGeneratorV31['generateDocument']>;
interface ParameterObject {
  name: string;
  in: string;
  schema?: unknown;
  example?: unknown;
  content?: Record<string, { schema: unknown; example?: unknown }>;
}

const TAGS = [
  { name: 'health', description: 'Liveness and readiness of the API and its dependencies.' },
  { name: 'auth', description: 'Accounts and session tokens.' },
  { name: 'api-keys', description: "The organization's API keys." },
  { name: 'agents', description: 'Voice agents: their workflow definitions, configurations and versions.' },
  { name: 'runs', description: 'Runs (calls) of agents: details, transcripts and recordings.' },
  { name: 'usage', description: "The organization's runs with their duration, tokens and charge." },
  { name: 'telephony', description: 'Telephony configurations, phone numbers and the providers’ webhooks.' },
  { name: 'speech', description: 'API keys of speech-to-text and text-to-speech providers.' },
  {
    name: 'credentials',
    description: "The organization's credentials: named secrets that webhooks send, stored encrypted and shown masked.",
  },
  {
    name: 'tools',
    description:
      'Tools an agent can use during a call: HTTP requests the model fills in, ending the call, a calculator (docs/guides/tools.md).',
  },
  {
    name: 'webhooks',
    description:
      "The organization's webhook signing secret, and its subscriptions to call and campaign events with their delivery log.",
  },
  { name: 'calls', description: 'Placing outbound calls with an agent.' },
  {
    name: 'text-chat',
    description: 'Talking with an agent in writing: sessions on the same conversation engine as its calls.',
  },
  {
    name: 'do-not-call',
    description: "The organization's do-not-call list: numbers no campaign or call dials.",
  },
  { name: 'campaigns', description: 'Campaigns: contact lists called with an agent, with retries and schedules.' },
  { name: 'privacy', description: "Erasing a person's data, and how long runs keep recordings and transcripts." },
];

/** Query parameters sent as JSON text, each with the schema of what it holds. */
const JSON_QUERY_PARAMETERS: Record<string, string> = { filters: 'RunFilters' };

/**
 * zod-to-openapi gives every parameter a `schema`; a parameter that carries JSON is declared with
 * `content` instead, so clients serialize it and generated types know its shape. Its example, JSON
 * text on the string schema, becomes the value it stands for.
 */
function typeJsonQueryParameters(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { parameters?: ParameterObject[] }>)) {
      for (const parameter of operation.parameters ?? []) {
        const component = JSON_QUERY_PARAMETERS[parameter.name];
        if (parameter.in !== 'query' || !component) continue;
        const example = parameter.example ?? (parameter.schema as { example?: unknown } | undefined)?.example;
        delete parameter.schema;
        delete parameter.example;
        parameter.content = {
          'application/json': {
            schema: { $ref: `#/components/schemas/${component}` },
            ...(typeof example === 'string' ? { example: JSON.parse(example) as unknown } : {}),
          },
        };
      }
    }
  }
}

const SCHEMA_REF = '#/components/schemas/';
/** Keys whose values are data, not schemas: never walked. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);
type Node = Record<string, unknown>;

/** Calls `visit` on every schema object in `root`, not following `$ref`s. */
function walkSchemas(root: unknown, visit: (schema: Node) => void): void {
  if (Array.isArray(root)) {
    for (const item of root) walkSchemas(item, visit);
    return;
  }
  if (!root || typeof root !== 'object') return;
  const schema = root as Node;
  visit(schema);
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      for (const property of Object.values(value)) walkSchemas(property, visit);
    } else {
      walkSchemas(value, visit);
    }
  }
}

/** Names of the components `roots` refer to, directly or through other components. */
function referencedComponents(roots: unknown[], components: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    walkSchemas(pending.pop(), (schema) => {
      const ref = schema.$ref;
      if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF)) return;
      const name = ref.slice(SCHEMA_REF.length);
      if (found.has(name)) return;
      found.add(name);
      pending.push(components[name]);
    });
  }
  return found;
}

/**
 * Request bodies may leave out a field with a default. zod-to-openapi already keeps such fields out
 * of `required`, but generators read `default` as "always present" in component schemas
 * (openapi-typescript's `defaultNonNullable`), which suits answers and makes requests demand the
 * field. So the schemas a request body uses state their defaults in the description instead; a
 * component that answers use too gets an `...Input` copy for the requests.
 */
function documentRequestDefaults(document: OpenAPIObject): void {
  const components = (document.components?.schemas ?? {}) as Record<string, Node>;
  const bodies: Node[] = [];
  const elsewhere: unknown[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Node>)) {
      const { requestBody, ...rest } = operation;
      const content = (requestBody as { content?: Record<string, { schema?: Node }> } | undefined)?.content ?? {};
      for (const media of Object.values(content)) if (media.schema) bodies.push(media.schema);
      elsewhere.push(rest);
    }
  }
  const requestSide = referencedComponents(bodies, components);
  const answerSide = referencedComponents(elsewhere, components);
  const hasDefault = (name: string) => {
    let found = false;
    walkSchemas(components[name], (schema) => {
      found ||= 'default' in schema;
    });
    return found;
  };
  // A shared component is copied when it, or a component it uses, has a default.
  const copied = new Set<string>();
  for (const name of requestSide) {
    const uses = referencedComponents([components[name]], components);
    if (answerSide.has(name) && [name, ...uses].some(hasDefault)) copied.add(name);
  }
  const inputName = (name: string) => `${name}Input`;
  for (const name of copied) {
    if (components[inputName(name)]) throw new Error(`The component ${inputName(name)} exists already`);
    components[inputName(name)] = structuredClone(components[name] ?? {});
  }
  const requestSchemas = [
    ...bodies,
    ...[...requestSide].map((name) => components[copied.has(name) ? inputName(name) : name]),
  ];
  for (const root of requestSchemas) {
    walkSchemas(root, (schema) => {
      const ref = schema.$ref;
      if (typeof ref === 'string' && copied.has(ref.slice(SCHEMA_REF.length))) {
        schema.$ref = SCHEMA_REF + inputName(ref.slice(SCHEMA_REF.length));
      }
      if (!('default' in schema)) return;
      const stated = `Default: \`${JSON.stringify(schema.default)}\`.`;
      const description = typeof schema.description === 'string' ? schema.description : '';
      if (!/\bdefault\b/i.test(description)) schema.description = description ? `${description} ${stated}` : stated;
      delete schema.default;
    });
  }
}
