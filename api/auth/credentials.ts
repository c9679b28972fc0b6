import type { DataSource } from 'typeorm';
import type { AuthContext } from '../context';
import { UnauthorizedError } from '../errors';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';
import type { ApiKeyUsageRecorder } from './api-key-usage';
import type { ApiKeyScope } from './scopes';
import type { SessionTokens } from './session-tokens';

export interface CredentialVerifier {
  /** An active, unarchived key: acts as the user who created it, in the key's organization, within its scope. */
  byApiKey(key: string): Promise<AuthContext>;
  /** A valid, unexpired, unrevoked session token of a user that still exists: full access. */
  bySessionToken(token: string): Promise<AuthContext>;
}

// Plain SQL on purpose: these run before every authenticated request, and building a repository
// `find` costs more CPU than PostgreSQL spends on the indexed lookup (bench/auth-me.ts: +50% req/s).
const ACTIVE_KEY_SQL = `SELECT id, user_id, organization_id, scope FROM api_keys
                         WHERE key_hash = $1 AND is_active AND archived_at IS NULL`;
const USER_SQL = 'SELECT organization_id, session_generation FROM users WHERE id = $1';

export function createCredentialVerifier(
  dataSource: DataSource,
  tokens: SessionTokens,
  recordUsage: ApiKeyUsageRecorder,
): CredentialVerifier {
  const firstRow = async <Row>(sql: string, parameter: string | number): Promise<Row | undefined> => {
    const rows = await dataSource.query<Row[]>(sql, [parameter]);
    return rows[0];
  };
  return {
    async byApiKey(key) {
      const found = isWellFormedApiKey(key)
        ? await firstRow<{ id: number; user_id: number; organization_id: number; scope: ApiKeyScope }>(
            ACTIVE_KEY_SQL,
            hashApiKey(key),
          )
        : undefined;
      if (!found) throw new UnauthorizedError('Invalid or expired API key');
      recordUsage(found.id);
      return { userId: found.user_id, organizationId: found.organization_id, scope: found.scope };
    },
    async bySessionToken(token) {
      const claims = await tokens.verify(token);
      if (claims === undefined) throw new UnauthorizedError('Invalid or expired token');
      const user = await firstRow<{ organization_id: number; session_generation: number }>(USER_SQL, claims.userId);
      if (!user) throw new UnauthorizedError('User not found');
      // Logging out or changing the password raised the generation: older tokens stop here.
      if (claims.generation !== user.session_generation) throw new UnauthorizedError('Session revoked');
      return { userId: claims.userId, organizationId: user.organization_id, scope: 'admin' };
    },
  };
}
