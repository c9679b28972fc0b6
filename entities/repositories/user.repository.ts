import type { DataSource, EntityManager } from 'typeorm';
import { User } from '../user.entity';
import { repositoryOver } from './repository';

/** The reads and writes of users' sign-in state. */
export function userStatements(manager: EntityManager) {
  const rows = manager.getRepository(User);
  return {
    findById(id: number): Promise<User | null> {
      return rows.findOneBy({ id });
    },

    /** By the email as stored (lower case). */
    findByEmail(email: string): Promise<User | null> {
      return rows.findOneBy({ email });
    },

    async setPasswordHash(id: number, passwordHash: string): Promise<void> {
      await rows.update({ id }, { passwordHash });
    },

    /** Raises the user's session generation: every token issued before stops working. */
    async revokeSessions(id: number): Promise<void> {
      await rows.increment({ id }, 'sessionGeneration', 1);
    },
  };
}

export const createUserRepository = (dataSource: DataSource) => repositoryOver(dataSource, userStatements);

export type UserRepository = ReturnType<typeof createUserRepository>;
