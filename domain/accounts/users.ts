import type { DataSource } from 'typeorm';
import type { User } from '../../entities';
import { createUserRepository, type UserRepository } from '../../entities/repositories/user.repository';
import { NotFoundError } from '../errors';
import { hashPassword } from './passwords';

/** Users as sign-in sees them: found by email or id, their password changed, their sessions revoked. */
export class Users {
  private readonly users: UserRepository;

  constructor(
    dataSource: DataSource,
    /** 2^rounds bcrypt rounds (PASSWORD_HASH_ROUNDS). */
    private readonly hashRounds: number,
  ) {
    this.users = createUserRepository(dataSource);
  }

  /** Null when no user has that email. */
  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /** The user; 404 when it was deleted after its credentials were checked. */
  async find(id: number): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }

  /** Every session token issued before stops working. */
  revokeSessions(id: number): Promise<void> {
    return this.users.revokeSessions(id);
  }

  /** Stores the new password's hash and revokes every session; answers the user as it now is. */
  async changePassword(id: number, newPassword: string): Promise<User> {
    await this.users.setPasswordHash(id, await hashPassword(newPassword, this.hashRounds));
    await this.users.revokeSessions(id);
    return this.find(id);
  }
}
