import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Credential } from '../../entities';
import { isUniqueViolation } from '../../entities/db-errors';
import {
  createCredentialRepository,
  type CredentialRepository,
  type CredentialStatements,
} from '../../entities/repositories/credential.repository';
import { maskedCredentials, mergeUpdate, openCredentials, sealCredentials } from '../../telephony/credentials';
import type { Secrets } from '../../telephony/secrets';
import type { Actor } from '../actor';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Quotas } from '../quotas';
import { toValidationIssues } from '../validation-issues';
import {
  CREDENTIAL_DATA,
  CREDENTIAL_FIELDS,
  type CredentialData,
  type CredentialType,
  type OpenCredential,
} from './credential-types';

export const CREDENTIAL_NOT_FOUND = 'Credential not found';
const NAME_CONSTRAINT = 'credentials_organization_id_name_key';

/** A credential as the API answers it: its secrets masked (all but the last four characters). */
export interface CredentialView {
  uuid: string;
  name: string;
  description: string | null;
  credential_type: CredentialType;
  credential_data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface NewCredential {
  name: string;
  description?: string | null;
  credential_type: CredentialType;
  credential_data: CredentialData;
}

/** A PUT: fields not sent keep their value; `credential_data` fields not sent, or sent back masked, too. */
export interface CredentialChanges {
  name?: string;
  description?: string | null;
  credential_type?: CredentialType;
  credential_data?: Record<string, unknown>;
}

const duplicateName = (name: string) =>
  new ConflictError(`A credential named '${name}' already exists in this organization. Pick a different name.`);

/**
 * The organization's credentials: named secrets sealed under SECRETS_KEY, shown masked, and opened
 * only for the request that sends them (`open`, then `credentialHeaders`).
 */
export class Credentials {
  private readonly credentials: CredentialRepository;

  constructor(
    dataSource: DataSource,
    private readonly secrets: Secrets,
    private readonly quotas: Quotas,
  ) {
    this.credentials = createCredentialRepository(dataSource);
  }

  view(row: Credential): CredentialView {
    return {
      uuid: row.uuid,
      name: row.name,
      description: row.description,
      credential_type: row.credentialType,
      credential_data: maskedCredentials(CREDENTIAL_FIELDS[row.credentialType], row.credentialData, this.secrets),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  /** Oldest first. */
  async list(caller: Actor): Promise<CredentialView[]> {
    const rows = await this.credentials.listOf(caller.organizationId);
    return rows.map((row) => this.view(row));
  }

  async get(caller: Actor, uuid: string): Promise<CredentialView> {
    return this.view(await this.owned(this.credentials, caller, uuid));
  }

  async create(caller: Actor, input: NewCredential): Promise<CredentialView> {
    const row = await this.savingName(input.name, () =>
      this.credentials.transaction(async (credentials, manager) => {
        const saved = await credentials.insert({
          uuid: randomUUID(),
          organizationId: caller.organizationId,
          name: input.name,
          description: input.description ?? null,
          credentialType: input.credential_type,
          credentialData: this.seal(input.credential_type, input.credential_data),
        });
        await this.quotas.claim(manager, 'credentials', caller.organizationId);
        return saved;
      }),
    );
    return this.view(row);
  }

  /**
   * Applies a PUT. A changed type needs its data in full; otherwise the data sent is merged over the
   * stored data, and a secret sent back exactly as its mask keeps the stored secret.
   */
  async update(caller: Actor, uuid: string, changes: CredentialChanges): Promise<CredentialView> {
    const row = await this.savingName(changes.name, () =>
      this.credentials.transaction(async (credentials) => {
        const row = await this.owned(credentials, caller, uuid, 'pessimistic_write');
        if (changes.credential_data !== undefined || changes.credential_type !== undefined) {
          const type = changes.credential_type ?? row.credentialType;
          const sameType = type === row.credentialType;
          const current = sameType ? openCredentials(row.credentialData, this.secrets) : {};
          const merged = sameType
            ? mergeUpdate(CREDENTIAL_FIELDS[type], current, changes.credential_data ?? {})
            : (changes.credential_data ?? {});
          const sealed = this.seal(type, this.parsed(type, merged));
          // A secret left as it was keeps its sealed bytes: an unchanged value is not a new encryption.
          for (const [field, value] of Object.entries(current)) {
            if (sealed[field] !== undefined && merged[field] === value) sealed[field] = row.credentialData[field];
          }
          row.credentialType = type;
          row.credentialData = sealed;
        }
        if (changes.name !== undefined) row.name = changes.name;
        if (changes.description !== undefined) row.description = changes.description;
        return credentials.save(row);
      }),
    );
    return this.view(row);
  }

  /** 409 while the current version of an agent names it: calls would lose their authentication. */
  async delete(caller: Actor, uuid: string): Promise<void> {
    await this.credentials.transaction(async (credentials) => {
      const row = await this.owned(credentials, caller, uuid, 'pessimistic_write');
      const users = await credentials.agentsUsing(caller.organizationId, row.uuid);
      if (users.length > 0) {
        const named = users.map((agent) => `'${agent.name}' (id ${agent.id})`).join(', ');
        throw new ConflictError(
          `The credential is used by ${users.length === 1 ? 'agent' : 'agents'} ${named}; remove it from their nodes first.`,
        );
      }
      await credentials.delete(row.id);
    });
  }

  private async owned(
    credentials: CredentialStatements,
    caller: Actor,
    uuid: string,
    lock?: 'pessimistic_write',
  ): Promise<Credential> {
    const row = await credentials.findOwned(caller.organizationId, uuid, lock);
    if (!row) throw new NotFoundError(CREDENTIAL_NOT_FOUND);
    return row;
  }

  private seal(type: CredentialType, data: CredentialData): Record<string, unknown> {
    return sealCredentials(CREDENTIAL_FIELDS[type], data, this.secrets);
  }

  /** The data checked against its type; problems located at `body.credential_data`. */
  private parsed(type: CredentialType, data: Record<string, unknown>): CredentialData {
    const result = CREDENTIAL_DATA[type].safeParse(data);
    if (!result.success) {
      throw new ValidationError(
        toValidationIssues(result.error, 'body').map((issue) => ({
          ...issue,
          loc: ['body', 'credential_data', ...issue.loc.slice(1)],
        })),
      );
    }
    return result.data;
  }

  /** Runs a write that may set the name, turning a name taken in the organization into 409. */
  private async savingName<T>(name: string | undefined, save: () => Promise<T>): Promise<T> {
    try {
      return await save();
    } catch (error) {
      if (isUniqueViolation(error, NAME_CONSTRAINT)) throw duplicateName(name ?? '');
      throw error;
    }
  }
}

/**
 * The organization's credential in clear, for the request that sends it (then `credentialHeaders`);
 * null when it is missing or another organization's. Never put what it answers in a response, a log,
 * a run or a workflow's input or result.
 */
export async function openCredential(
  dataSource: DataSource,
  secrets: Secrets,
  organizationId: number,
  uuid: string,
): Promise<OpenCredential | null> {
  const row = await createCredentialRepository(dataSource).findOwned(organizationId, uuid);
  if (!row) return null;
  return {
    uuid: row.uuid,
    name: row.name,
    credential_type: row.credentialType,
    // Written only through CREDENTIAL_DATA, so the opened fields are the type's.
    credential_data: openCredentials(row.credentialData, secrets),
  } as OpenCredential;
}
