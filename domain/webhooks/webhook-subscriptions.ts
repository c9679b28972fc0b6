import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  createWebhookRepository,
  type SubscriptionRow,
  type WebhookRepository,
} from '../../entities/repositories/webhook.repository';
import { AddressRefusedError, checkedAddress, type Resolver } from '../../platform/address-guard';
import type { Config } from '../../platform/config';
import { NotFoundError, ValidationError } from '../errors';
import { Quotas } from '../quotas';
import type { OrganizationEventType } from './organization-events';

export interface WebhookSubscriptionView {
  subscription_uuid: string;
  url: string;
  events: OrganizationEventType[];
  active: boolean;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookSubscriptionChanges {
  url: string;
  events: OrganizationEventType[];
  active: boolean;
  description: string;
}

const view = (row: SubscriptionRow): WebhookSubscriptionView => ({
  subscription_uuid: row.id,
  url: row.url,
  events: row.events,
  active: row.active,
  description: row.description,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const subscriptionNotFound = (uuid: string) => new NotFoundError(`Webhook subscription ${uuid} not found`);

export interface WebhookSubscriptionsDeps {
  dataSource: DataSource;
  config: Pick<Config, 'ALLOW_PRIVATE_WEBHOOKS'> & ConstructorParameters<typeof Quotas>[0];
  /** DNS, replaceable in tests. */
  resolve?: Resolver;
}

/** The organization's webhook subscriptions: which events go to which of its URLs. */
export class WebhookSubscriptions {
  private readonly quotas: Quotas;
  private readonly webhooks: WebhookRepository;

  constructor(private readonly deps: WebhookSubscriptionsDeps) {
    this.quotas = new Quotas(deps.config);
    this.webhooks = createWebhookRepository(deps.dataSource);
  }

  async list(organizationId: number): Promise<WebhookSubscriptionView[]> {
    const rows = await this.webhooks.listSubscriptions(organizationId);
    return rows.map(view);
  }

  async get(organizationId: number, uuid: string): Promise<WebhookSubscriptionView> {
    const row = await this.webhooks.findSubscription(organizationId, uuid);
    if (!row) throw subscriptionNotFound(uuid);
    return view(row);
  }

  /**
   * The URL's host must not be a private, loopback or metadata address (unless the service allows
   * private webhooks); it is checked again at every delivery. A name that does not resolve now may
   * later, so only an address that resolves to an internal one is refused here.
   */
  private async checkUrl(url: string): Promise<void> {
    const refuse = (msg: string) => new ValidationError([{ loc: ['body', 'url'], msg, type: 'value_error' }]);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse('Not a URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse('The URL must be http or https');
    try {
      await checkedAddress(parsed.hostname, {
        allowPrivate: this.deps.config.ALLOW_PRIVATE_WEBHOOKS,
        allowSetting: 'ALLOW_PRIVATE_WEBHOOKS',
        resolve: this.deps.resolve,
      });
    } catch (error) {
      if (error instanceof AddressRefusedError && !/does not resolve/.test(error.message)) throw refuse(error.message);
    }
  }

  async create(organizationId: number, changes: WebhookSubscriptionChanges): Promise<WebhookSubscriptionView> {
    await this.checkUrl(changes.url);
    return this.webhooks.transaction(async (webhooks, manager) => {
      const row = await webhooks.insertSubscription(organizationId, randomUUID(), changes);
      await this.quotas.claim(manager, 'webhook_subscriptions', organizationId);
      return view(row);
    });
  }

  async update(
    organizationId: number,
    uuid: string,
    changes: WebhookSubscriptionChanges,
  ): Promise<WebhookSubscriptionView> {
    await this.get(organizationId, uuid);
    await this.checkUrl(changes.url);
    const row = await this.webhooks.updateSubscription(organizationId, uuid, changes);
    if (!row) throw subscriptionNotFound(uuid);
    return view(row);
  }

  /** Removes the subscription and its delivery log; deliveries still being retried stop. */
  async remove(organizationId: number, uuid: string): Promise<void> {
    if (!(await this.webhooks.deleteSubscription(organizationId, uuid))) throw subscriptionNotFound(uuid);
  }
}
