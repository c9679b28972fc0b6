import { IsNull, type DataSource, type DeepPartial, type EntityManager } from 'typeorm';
import { ApiKey } from '../api-key.entity';
import { repositoryOver } from './repository';

/** The reads and writes of an organization's API keys (stored by prefix and hash, never in full). */
export function apiKeyStatements(manager: EntityManager) {
  const rows = manager.getRepository(ApiKey);
  return {
    insert(fields: DeepPartial<ApiKey>): Promise<ApiKey> {
      return rows.save(rows.create(fields));
    },

    /** Newest first; archived keys only when asked. */
    listOf(organizationId: number, { includeArchived }: { includeArchived: boolean }): Promise<ApiKey[]> {
      return rows.find({
        where: { organizationId, ...(includeArchived ? {} : { archivedAt: IsNull() }) },
        order: { createdAt: 'DESC', id: 'DESC' },
      });
    },

    /** The organization's key with that id; null when it is missing or another organization's. */
    findOwned(organizationId: number, id: number): Promise<ApiKey | null> {
      return rows.findOneBy({ id, organizationId });
    },

    async archive(id: number, archivedAt: Date): Promise<void> {
      await rows.update({ id }, { isActive: false, archivedAt });
    },
  };
}

export const createApiKeyRepository = (dataSource: DataSource) => repositoryOver(dataSource, apiKeyStatements);

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
