import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import { ConflictError } from '../errors';
import { createAccount } from './accounts';

/**
 * First-run administrator from ADMIN_EMAIL / ADMIN_PASSWORD: creates the user and its organization
 * when no user has that email; otherwise changes nothing (the password is not reset). Safe to run
 * on every start and from several replicas at once. True when it created the user.
 */
export async function ensureAdminUser(
  dataSource: DataSource,
  config: Pick<Config, 'ADMIN_EMAIL' | 'ADMIN_PASSWORD' | 'PASSWORD_HASH_ROUNDS'>,
): Promise<boolean> {
  if (!config.ADMIN_EMAIL || !config.ADMIN_PASSWORD) return false;
  const email = config.ADMIN_EMAIL.trim().toLowerCase();
  try {
    await createAccount(
      dataSource,
      { email, password: config.ADMIN_PASSWORD, name: 'Administrator' },
      config.PASSWORD_HASH_ROUNDS,
    );
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}
