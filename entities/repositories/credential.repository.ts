import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { Credential } from '../credential.entity';
import { repositoryOver } from './repository';

/** An agent whose current version names a credential. */
export interface CredentialUser {
  id: number;
  name: string;
}

/** The node fields of an agent definition that name a credential by uuid. */
export const CREDENTIAL_REFERENCE_FIELDS = [
  'credential_uuid',
  'pre_call_fetch_credential_uuid',
  'qa_credential_uuid',
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization's credential with that uuid; null when it is missing or another organization's. */
export function findCredential(
  manager: EntityManager,
  organizationId: number,
  uuid: string,
  lock?: 'pessimistic_write' | 'pessimistic_read',
): Promise<Credential | null> {
  if (!UUID.test(uuid)) return Promise.resolve(null);
  return manager.findOne(Credential, { where: { organizationId, uuid }, ...(lock ? { lock: { mode: lock } } : {}) });
}

/** The reads and writes of an organization's credentials (named secrets, sealed). */
export function credentialStatements(manager: EntityManager) {
  const rows = manager.getRepository(Credential);
  return {
    /** Oldest first. */
    listOf(organizationId: number): Promise<Credential[]> {
      return rows.find({ where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
    },

    /** Null when it is missing, another organization's, or the uuid is malformed; optionally locked. */
    findOwned(
      organizationId: number,
      uuid: string,
      lock?: 'pessimistic_write' | 'pessimistic_read',
    ): Promise<Credential | null> {
      return findCredential(manager, organizationId, uuid, lock);
    },

    insert(fields: DeepPartial<Credential>): Promise<Credential> {
      return rows.save(rows.create(fields));
    },

    save(row: Credential): Promise<Credential> {
      return rows.save(row);
    },

    async delete(id: number): Promise<void> {
      await rows.delete({ id });
    },

    /**
     * Which of these uuids name a credential of the organization, spelled as the API answers them
     * (lower case). The rows found are share-locked until the transaction ends, so a concurrent
     * delete waits and then sees the new reference.
     */
    async lockExisting(organizationId: number, uuids: string[]): Promise<Set<string>> {
      const candidates = [...new Set(uuids.filter((uuid) => UUID.test(uuid)))];
      if (candidates.length === 0) return new Set();
      const found = await manager.query<{ uuid: string }[]>(
        `SELECT uuid::text AS uuid FROM credentials
      WHERE organization_id = $1 AND uuid = ANY($2::uuid[])
      ORDER BY id
        FOR SHARE`,
        [organizationId, candidates],
      );
      return new Set(found.map((row) => row.uuid));
    },

    /** The organization's agents whose current version names the credential in a node. */
    agentsUsing(organizationId: number, uuid: string): Promise<CredentialUser[]> {
      return manager.query<CredentialUser[]>(
        `SELECT a.id, a.name FROM agents a
       JOIN agent_versions v ON v.id = a.current_definition_id
      WHERE a.organization_id = $1
        AND jsonb_path_exists(
              v.workflow_definition,
              '$.nodes[*].data ? (@.credential_uuid == $uuid || @.pre_call_fetch_credential_uuid == $uuid || @.qa_credential_uuid == $uuid)',
              jsonb_build_object('uuid', $2::text))
      ORDER BY a.id`,
        [organizationId, uuid],
      );
    },
  };
}

export type CredentialStatements = ReturnType<typeof credentialStatements>;

export const createCredentialRepository = (dataSource: DataSource) => repositoryOver(dataSource, credentialStatements);

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
