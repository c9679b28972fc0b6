import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Route } from './route';
import { version } from '../platform/version';

export const API_PREFIX = '/api/v1';

/** The OpenAPI 3.1 document, generated from the same route specs that validate requests. */
export function buildOpenApiDocument(routes: Route[], publicBaseUrl: string): object {
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
  for (const route of routes) registry.registerPath(route.openapi);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version,
      description:
        'Self-hosted voice-agent calling service. Errors answer `{detail}`; validation errors are 422 ' +
        'with `detail: [{loc, msg, type}]`; unknown routes 404, wrong methods 405, bodies over the limit ' +
        '413, PostgreSQL or Temporal unreachable 503.',
    },
    servers: [{ url: `${publicBaseUrl.replace(/\/$/, '')}${API_PREFIX}` }],
  });
}
