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
  { name: 'calls', description: 'Placing outbound calls with an agent.' },
  { name: 'campaigns', description: 'Campaigns: contact lists called with an agent, with retries and schedules.' },
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
