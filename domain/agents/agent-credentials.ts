import {
  CREDENTIAL_REFERENCE_FIELDS,
  type CredentialStatements,
} from '../../entities/repositories/credential.repository';
import { ValidationError } from '../errors';
import type { AgentGraph } from './agent-graph';

interface CredentialReference {
  nodeIndex: number;
  field: (typeof CREDENTIAL_REFERENCE_FIELDS)[number];
  uuid: string;
}

const referencesOf = (definition: AgentGraph): CredentialReference[] =>
  definition.nodes.flatMap((node, nodeIndex) =>
    CREDENTIAL_REFERENCE_FIELDS.flatMap((field) => {
      const uuid = (node.data as Record<string, unknown>)[field];
      return typeof uuid === 'string' && uuid !== '' ? [{ nodeIndex, field, uuid }] : [];
    }),
  );

/**
 * Every credential a node names must be one of the organization's (422 at the node's field
 * otherwise). Runs inside the transaction that saves the version; the credentials found stay
 * share-locked until it commits, so a concurrent delete cannot slip between the check and the save.
 */
export async function checkCredentialReferences(
  credentials: Pick<CredentialStatements, 'lockExisting'>,
  organizationId: number,
  definition: AgentGraph,
): Promise<void> {
  const references = referencesOf(definition);
  if (references.length === 0) return;
  const existing = await credentials.lockExisting(
    organizationId,
    references.map((reference) => reference.uuid),
  );
  const missing = references.filter((reference) => !existing.has(reference.uuid));
  if (missing.length === 0) return;
  throw new ValidationError(
    missing.map(({ nodeIndex, field, uuid }) => ({
      loc: ['body', 'workflow_definition', 'nodes', nodeIndex, 'data', field],
      msg: `No credential with uuid ${uuid} in this organization (GET /api/v1/credentials lists them)`,
      type: 'value_error',
    })),
  );
}
