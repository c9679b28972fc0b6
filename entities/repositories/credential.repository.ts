import type { EntityManager } from 'typeorm';
import { Credential } from '../credential.entity';

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

/**
 * Which of these uuids name a credential of the organization, spelled as the API answers them (lower
 * case). The rows found are share-locked until
 * the transaction ends, so a concurrent delete waits and then sees the new reference.
 */
export async function lockExistingCredentials(
  manager: EntityManager,
  organizationId: number,
  uuids: string[],
): Promise<Set<string>> {
  const candidates = [...new Set(uuids.filter((uuid) => UUID.test(uuid)))];
  if (candidates.length === 0) return new Set();
  const rows = await manager.query<{ uuid: string }[]>(
    `SELECT uuid::text AS uuid FROM credentials
      WHERE organization_id = $1 AND uuid = ANY($2::uuid[])
      ORDER BY id
        FOR SHARE`,
    [organizationId, candidates],
  );
  return new Set(rows.map((row) => row.uuid));
}

/** The organization's agents whose current version names the credential in a node. */
export function agentsUsingCredential(
  manager: EntityManager,
  organizationId: number,
  uuid: string,
): Promise<CredentialUser[]> {
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
}
