import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  createWebhookRepository,
  type DeliveryToAttempt,
  type WebhookRepository,
} from '../../entities/repositories/webhook.repository';
import type { Resolver } from '../../platform/address-guard';
import { guardedRequest, OutboundRefusedError } from '../../platform/outbound-http';
import type { Secrets } from '../../telephony/secrets';
import { NotFoundError } from '../errors';
import {
  TEST_EVENT_TYPE,
  type DeliveredEventType,
  type OrganizationEventEnvelope,
  type OrganizationEventType,
} from './organization-events';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import { signedUrl, v2Headers } from './signature-v2';
import { WebhookSigningSecrets } from './signing-secrets';
import { subscriptionNotFound } from './webhook-subscriptions';

/**
 * How one attempt ended. `retrying`: worth another try (network error, timeout, 5xx, 408, 429);
 * `failed`: the receiver refused it (other 4xx, a redirect); `refused`: the address is not allowed;
 * `gone`: the subscription was deleted since the event.
 */
export type AttemptStatus = 'delivered' | 'retrying' | 'failed' | 'refused' | 'gone';

export interface AttemptOutcome {
  status: AttemptStatus;
  statusCode?: number;
  durationMs: number;
  error?: string;
}

export interface DeliveryAttemptView {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  at: string;
}

export interface WebhookDeliveryView {
  delivery_uuid: string;
  event_id: string;
  event_type: DeliveredEventType;
  status: 'pending' | 'delivered' | 'retrying' | 'failed' | 'refused';
  attempts: DeliveryAttemptView[];
  payload: OrganizationEventEnvelope;
  created_at: string;
  updated_at: string;
}

export interface DeliveryLimits {
  /** Longest silence on the socket, ms. */
  timeoutMs: number;
  /** The whole attempt, ms: a receiver that drips its answer is cut off. */
  deadlineMs: number;
  /** The most of the answer read. */
  maxAnswerBytes: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = {
  timeoutMs: 10_000,
  deadlineMs: 20_000,
  maxAnswerBytes: 64 * 1024,
};

export interface WebhookDeliveriesDeps {
  dataSource: DataSource;
  /** Opens the organizations' signing secrets. */
  secrets: Secrets;
  /** `ALLOW_PRIVATE_WEBHOOKS`. */
  allowPrivate: boolean;
  /** `WEBHOOK_SIGNATURE_V1`: the body-only `X-Switchboard-Signature` beside `v2`. */
  signV1: boolean;
  /** Starts the durable delivery of one stored delivery (a Temporal workflow); without it, events are stored only. */
  startDelivery?: (deliveryId: string) => Promise<void>;
  limits?: DeliveryLimits;
  /** DNS, replaceable in tests. */
  resolve?: Resolver;
}

/** How much of a failed answer the log keeps. */
const ERROR_BODY_CHARS = 300;

/**
 * Events to the organization's subscriptions: each event is stored once per subscription that wants
 * it (the delivery log), then sent by a durable workflow that retries; every attempt is logged with
 * its status code, duration and error. Deliveries are signed like post-call webhooks, with the
 * organization's signing secret.
 */
export class WebhookDeliveries {
  private readonly signingSecrets: WebhookSigningSecrets;
  private readonly webhooks: WebhookRepository;

  constructor(private readonly deps: WebhookDeliveriesDeps) {
    this.signingSecrets = new WebhookSigningSecrets(deps.dataSource, deps.secrets);
    this.webhooks = createWebhookRepository(deps.dataSource);
  }

  /**
   * Stores `type` for every active subscription of the organization that wants it and starts each
   * delivery. `eventId` makes it idempotent: emitting the same event again (a retried activity)
   * stores nothing new and starts nothing twice. Answers the deliveries' ids.
   */
  async emit(
    organizationId: number,
    type: OrganizationEventType,
    data: Record<string, unknown>,
    eventId: string = randomUUID(),
  ): Promise<string[]> {
    const envelope: OrganizationEventEnvelope = { id: eventId, type, created_at: new Date().toISOString(), data };
    await this.webhooks.storeEventDeliveries(organizationId, eventId, type, envelope);
    const rows = await this.webhooks.deliveriesOfEvent(organizationId, eventId);
    const { startDelivery } = this.deps;
    if (startDelivery) {
      await Promise.all(rows.filter((row) => row.status === 'pending').map((row) => startDelivery(row.id)));
    }
    return rows.map((row) => row.id);
  }

  /** Sends one attempt of a stored delivery and logs it. */
  async attempt(deliveryId: string, attempt: number, signal?: AbortSignal): Promise<AttemptOutcome> {
    const row = await this.webhooks.deliveryToAttempt(deliveryId);
    if (!row || row.url === null) return { status: 'gone', durationMs: 0 };
    const outcome =
      row.active || row.payload.type === TEST_EVENT_TYPE
        ? await this.send(row, row.url, signal)
        : { status: 'failed' as const, durationMs: 0, error: 'The subscription was deactivated before delivery' };
    await this.log(deliveryId, attempt, outcome);
    return outcome;
  }

  /** The delivery was given up (attempts exhausted, a timeout): its status says so for good. */
  async givenUp(deliveryId: string, error: string): Promise<void> {
    await this.webhooks.markGivenUp(deliveryId);
    await this.webhooks.noteLastAttemptError(deliveryId, error);
  }

  /** A `webhook.test` event sent once to the subscription now, logged like any delivery; answers it. */
  async test(organizationId: number, subscriptionId: string): Promise<WebhookDeliveryView> {
    const eventId = randomUUID();
    const deliveryId = randomUUID();
    const envelope: OrganizationEventEnvelope = {
      id: eventId,
      type: TEST_EVENT_TYPE,
      created_at: new Date().toISOString(),
      data: { subscription_uuid: subscriptionId, message: 'A test delivery from Switchboard' },
    };
    if (!(await this.webhooks.insertSubscriptionDelivery(organizationId, subscriptionId, deliveryId, envelope))) {
      throw subscriptionNotFound(subscriptionId);
    }
    const outcome = await this.attempt(deliveryId, 1);
    // One attempt only: what it got is final.
    if (outcome.status === 'retrying') await this.givenUp(deliveryId, outcome.error ?? 'not delivered');
    const [delivery] = await this.read(organizationId, subscriptionId, { deliveryId, limit: 1 });
    if (!delivery) throw new NotFoundError(`Delivery ${deliveryId} not found`);
    return delivery;
  }

  /** The subscription's deliveries, newest first, each with its attempts. */
  async list(organizationId: number, subscriptionId: string, limit: number): Promise<WebhookDeliveryView[]> {
    if (!(await this.webhooks.subscriptionExists(organizationId, subscriptionId))) {
      throw subscriptionNotFound(subscriptionId);
    }
    return this.read(organizationId, subscriptionId, { limit });
  }

  private async read(
    organizationId: number,
    subscriptionId: string,
    { limit, deliveryId }: { limit: number; deliveryId?: string },
  ): Promise<WebhookDeliveryView[]> {
    const rows = await this.webhooks.deliveriesOf(organizationId, subscriptionId, { limit, deliveryId });
    return rows.map((row) => ({
      delivery_uuid: row.id,
      event_id: row.event_id,
      event_type: row.event_type,
      status: row.status,
      attempts: row.attempts.map((attempt) => ({ ...attempt, at: new Date(attempt.at).toISOString() })),
      payload: row.payload,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    }));
  }

  private async send(row: DeliveryToAttempt, rawUrl: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    const body = JSON.stringify(row.payload);
    let url: string;
    try {
      url = signedUrl(rawUrl);
    } catch {
      return { status: 'refused', durationMs: 0, error: `${rawUrl} is not a URL` };
    }
    // The subscription's own organization's secret: another tenant's receiver cannot forge these.
    const keys = await this.signingSecrets.signingKeys(row.organization_id);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'user-agent': 'Switchboard-Webhooks/1',
      'content-type': 'application/json',
      // Stable across retries: receivers can drop a delivery they already processed.
      'x-switchboard-delivery': row.id,
      'x-switchboard-event': row.payload.type,
      ...v2Headers(keys, { method: 'POST', url, id: row.id, timestamp, body }),
      ...(this.deps.signV1 ? { [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(keys, body, timestamp) } : {}),
    };
    const limits = this.deps.limits ?? DEFAULT_DELIVERY_LIMITS;
    try {
      const answer = await guardedRequest(
        { method: 'POST', url, headers, body },
        { allowPrivate: this.deps.allowPrivate, allowSetting: 'ALLOW_PRIVATE_WEBHOOKS', resolve: this.deps.resolve },
        // A subscription's receiver is the URL the tenant gave: redirects are not followed.
        { ...limits, maxRedirects: 0, ...(signal ? { signal } : {}) },
      );
      const { status } = answer;
      if (status >= 200 && status < 300) return { status: 'delivered', statusCode: status, durationMs: elapsed() };
      const text = answer.body.toString('utf8').slice(0, ERROR_BODY_CHARS).trim();
      const error = `${new URL(answer.url).host} answered ${status}${text ? `: ${text}` : ''}`;
      if (status >= 300 && status < 400) {
        return {
          status: 'failed',
          statusCode: status,
          durationMs: elapsed(),
          error: `${error} (redirects are not followed)`,
        };
      }
      const final = status >= 400 && status < 500 && status !== 408 && status !== 429;
      return { status: final ? 'failed' : 'retrying', statusCode: status, durationMs: elapsed(), error };
    } catch (error) {
      const refused = error instanceof OutboundRefusedError;
      return { status: refused ? 'refused' : 'retrying', durationMs: elapsed(), error: (error as Error).message };
    }
  }

  private async log(deliveryId: string, attempt: number, outcome: AttemptOutcome): Promise<void> {
    if (outcome.status === 'gone') return;
    await this.webhooks.transaction(async (webhooks) => {
      await webhooks.recordAttempt(deliveryId, attempt, {
        statusCode: outcome.statusCode ?? null,
        durationMs: outcome.durationMs,
        error: outcome.error ?? null,
      });
      await webhooks.setDeliveryStatus(deliveryId, outcome.status, attempt);
    });
  }
}
