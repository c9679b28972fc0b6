import type { DataSource } from 'typeorm';
import type { ApiKey } from '../../entities';
import { createApiKeyRepository, type ApiKeyRepository } from '../../entities/repositories/api-key.repository';
import type { Actor } from '../actor';
import { NotFoundError } from '../errors';
import type { Quotas } from '../quotas';

export const API_KEY_NOT_FOUND = 'API key not found';

/** A key to store: its name and scope, and the prefix and hash of the full key its creator sees once. */
export interface NewApiKeyRecord {
  name: string;
  scope: ApiKey['scope'];
  keyPrefix: string;
  keyHash: string;
}

/** The organization's API keys: counted by a quota, archived for good rather than deleted. */
export class ApiKeys {
  private readonly keys: ApiKeyRepository;

  constructor(
    dataSource: DataSource,
    private readonly quotas: Quotas,
  ) {
    this.keys = createApiKeyRepository(dataSource);
  }

  create(caller: Actor, key: NewApiKeyRecord): Promise<ApiKey> {
    return this.keys.transaction(async (keys, manager) => {
      const inserted = await keys.insert({ organizationId: caller.organizationId, userId: caller.userId, ...key });
      await this.quotas.claim(manager, 'api_keys', caller.organizationId);
      return inserted;
    });
  }

  /** Newest first. */
  list(caller: Actor, includeArchived: boolean): Promise<ApiKey[]> {
    return this.keys.listOf(caller.organizationId, { includeArchived });
  }

  /** The key stops working at once; archiving again keeps the first archive time. */
  async archive(caller: Actor, id: number): Promise<void> {
    const key = await this.keys.findOwned(caller.organizationId, id);
    if (!key) throw new NotFoundError(API_KEY_NOT_FOUND);
    await this.keys.archive(key.id, key.archivedAt ?? new Date());
  }
}
