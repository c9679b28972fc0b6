import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { Organization } from '../organization.entity';
import { User } from '../user.entity';
import { repositoryOver } from './repository';

/** The reads and writes of users: their accounts (each with the organization it owns) and sign-in state. */
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

    emailTaken(email: string): Promise<boolean> {
      return rows.existsBy({ email });
    },

    /** How many users there are, of every organization. */
    async countAll(): Promise<number> {
      const [users] = await manager.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM users`);
      return users?.count ?? 0;
    },

    /** A new organization, for the account about to own it. */
    insertOrganization(name: string): Promise<Organization> {
      const organizations = manager.getRepository(Organization);
      return organizations.save(organizations.create({ name }));
    },

    insert(fields: DeepPartial<User>): Promise<User> {
      return rows.save(rows.create(fields));
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
