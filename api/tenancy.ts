import type { FindOptionsWhere, Repository } from 'typeorm';
import type { AuthContext } from './context';
import { NotFoundError } from '../domain/errors';

interface OrganizationOwned {
  id: number;
  organizationId: number;
}

/**
 * Loads a row by id within the caller's organization. Another organization's row answers exactly
 * like a missing one (404), so ids reveal nothing across tenants.
 */
export async function findOwned<Entity extends OrganizationOwned>(
  repository: Repository<Entity>,
  id: number,
  caller: AuthContext,
  notFoundDetail: string,
): Promise<Entity> {
  // The cast: TypeORM cannot see that `id` and `organizationId` are columns of every `Entity` here.
  const where = { id, organizationId: caller.organizationId } as FindOptionsWhere<Entity>;
  const found = await repository.findOneBy(where);
  if (!found) throw new NotFoundError(notFoundDetail);
  return found;
}
