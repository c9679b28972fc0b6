import type { Context as OtelContext } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import type { ApiKeyScope } from './auth/scopes';
import type { Metrics } from './metrics';

/** Everything the API needs, built by its entry point (or a test) and passed in. */
export interface ApiDeps {
  config: Config;
  dataSource: DataSource;
  temporal: Client;
  logger: Logger;
  metrics: Metrics;
}

/** Who is calling: set by authentication on every route that declares credentials. */
export interface AuthContext {
  userId: number;
  organizationId: number;
  /** What the credential may do: an API key's scope, `admin` for a session token. */
  scope: ApiKeyScope;
}

/** Per-request state set by middleware. */
export interface AppState {
  requestId: string;
  log: Logger;
  auth?: AuthContext;
  /**
   * The trace context a caller without credentials sent: not continued by the request's span, only
   * by work a route does after authenticating the caller another way (a provider's signature).
   */
  claimedTraceContext?: OtelContext;
}
