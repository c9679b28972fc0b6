import type { PoolClient } from 'pg';
import type { EntityManager } from 'typeorm';
import {
  quotaStatements,
  quotaStatementsOnClient,
  type QuotaStatements,
} from '../entities/repositories/quota.repository';
import type { Config } from '../platform/config';
import { ConflictError } from './errors';

/**
 * What an organization can grow through the API, each bounded by a setting: the table, the column
 * that scopes it (the organization, or for versions the agent) and how the detail names it.
 */
export const QUOTAS = {
  agents: {
    setting: 'QUOTA_AGENTS',
    table: 'agents',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'agents',
  },
  agent_versions: {
    setting: 'QUOTA_AGENT_VERSIONS',
    table: 'agent_versions',
    scope: 'agent_id',
    per: 'an agent',
    noun: 'versions',
  },
  telephony_configurations: {
    setting: 'QUOTA_TELEPHONY_CONFIGURATIONS',
    table: 'telephony_configurations',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'telephony configurations',
  },
  phone_numbers: {
    setting: 'QUOTA_PHONE_NUMBERS',
    table: 'phone_numbers',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'phone numbers',
  },
  campaigns: {
    setting: 'QUOTA_CAMPAIGNS',
    table: 'campaigns',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'campaigns',
  },
  campaign_sources: {
    setting: 'QUOTA_CAMPAIGN_SOURCES',
    table: 'campaign_sources',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'contact lists (campaign sources)',
  },
  api_keys: {
    setting: 'QUOTA_API_KEYS',
    table: 'api_keys',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'API keys, archived ones included',
  },
  credentials: {
    setting: 'QUOTA_CREDENTIALS',
    table: 'credentials',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'credentials',
  },
  do_not_call_numbers: {
    setting: 'QUOTA_DO_NOT_CALL_NUMBERS',
    table: 'do_not_call_numbers',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'numbers on its do-not-call list',
  },
  tools: {
    setting: 'QUOTA_TOOLS',
    table: 'tools',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'tools, archived ones included',
  },
  knowledge_base_documents: {
    setting: 'QUOTA_KNOWLEDGE_BASE_DOCUMENTS',
    table: 'knowledge_base_documents',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'knowledge-base documents',
  },
  webhook_subscriptions: {
    setting: 'QUOTA_WEBHOOK_SUBSCRIPTIONS',
    table: 'webhook_subscriptions',
    scope: 'organization_id',
    per: 'an organization',
    noun: 'webhook subscriptions',
  },
} as const;

export type QuotaName = keyof typeof QUOTAS;

/** The request is fine; the organization's current state refuses it (the API answers 409). */
export class QuotaExceededError extends ConflictError {
  constructor(
    readonly quota: QuotaName,
    readonly limit: number,
  ) {
    const { per, noun, setting } = QUOTAS[quota];
    super(`Quota exceeded: ${per} may have at most ${limit} ${noun} (${quota}, ${setting})`);
  }
}

/** How a route that creates rows under `quotas` documents its 409. */
export const quotaBreach = (...quotas: QuotaName[]): string =>
  `Quota exceeded (${quotas.map((quota) => `\`${QUOTAS[quota].setting}\``).join(', ')}): the detail names the quota and its limit`;

// Advisory-lock namespace (the first key of `pg_advisory_xact_lock(int, int)`); the second is the scope's id.
const LOCK_SPACE = Object.fromEntries(
  (Object.keys(QUOTAS) as QuotaName[]).map((quota, index) => [quota, 0x5157_0000 + index]),
) as Record<QuotaName, number>;

/**
 * Per-organization limits on stored rows. A claim runs inside the transaction that inserted the new
 * row, after the insert: it takes a transaction-scoped advisory lock on the quota and scope, then
 * counts with a fresh snapshot (READ COMMITTED), which includes every row committed by a creator
 * that held the lock before; over the limit, it throws and the transaction rolls back. Concurrent
 * creates therefore take turns at the count and cannot overshoot, while the lock is held only from
 * the claim to the commit.
 */
export class Quotas {
  constructor(private readonly config: Pick<Config, (typeof QUOTAS)[QuotaName]['setting']>) {}

  limit(quota: QuotaName): number {
    return this.config[QUOTAS[quota].setting];
  }

  /** After inserting a row counted by `quota` for `scopeId` through `manager`, in its transaction. */
  claim(manager: EntityManager, quota: QuotaName, scopeId: number): Promise<void> {
    return this.check(quotaStatements(manager), quota, scopeId);
  }

  /** The same on a raw pg client inside its own transaction. */
  claimOn(client: PoolClient, quota: QuotaName, scopeId: number): Promise<void> {
    return this.check(quotaStatementsOnClient(client), quota, scopeId);
  }

  private async check(statements: QuotaStatements, quota: QuotaName, scopeId: number): Promise<void> {
    const limit = this.limit(quota);
    await statements.lockScope(LOCK_SPACE[quota], scopeId);
    if ((await statements.countScoped(QUOTAS[quota], scopeId)) > limit) throw new QuotaExceededError(quota, limit);
  }
}
