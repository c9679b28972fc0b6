import type { DataSource } from 'typeorm';
import type { User } from '../../entities';
import { createUserRepository } from '../../entities/repositories/user.repository';
import { hashPassword } from './passwords';
import { isUniqueViolation } from '../../entities/db-errors';
import { ConflictError } from '../errors';

export interface NewAccount {
  /** Already lower-cased. */
  email: string;
  password: string;
  name?: string | null;
}

/**
 * A user and the organization it owns, created together; 409 when the email is taken. The password
 * is hashed with 2^`hashRounds` bcrypt rounds (PASSWORD_HASH_ROUNDS).
 */
export async function createAccount(dataSource: DataSource, account: NewAccount, hashRounds: number): Promise<User> {
  // Hashed whether or not the email is taken, so the time taken does not tell which it is.
  const passwordHash = await hashPassword(account.password, hashRounds);
  const users = createUserRepository(dataSource);
  if (await users.emailTaken(account.email)) {
    throw new ConflictError('Email already registered');
  }
  try {
    return await users.transaction(async (accounts) => {
      const organization = await accounts.insertOrganization(account.name ?? account.email);
      return accounts.insert({
        organizationId: organization.id,
        email: account.email,
        name: account.name ?? null,
        passwordHash,
      });
    });
  } catch (error) {
    // Two signups with one email at the same moment: the unique index decides.
    if (isUniqueViolation(error, 'users_email_key')) throw new ConflictError('Email already registered');
    throw error;
  }
}
