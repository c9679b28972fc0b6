import type { DataSource, EntityManager } from 'typeorm';
import type {
  DeliveredEventType,
  OrganizationEventEnvelope,
  OrganizationEventType,
} from '../../domain/webhooks/organization-events';
import { Run } from '../run.entity';
import { repositoryOver } from './repository';

/** A webhook subscription as stored. */
export interface SubscriptionRow {
  id: string;
  url: string;
  events: OrganizationEventType[];
  active: boolean;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionFields {
  url: string;
  events: OrganizationEventType[];
  active: boolean;
  description: string;
}

/** A stored delivery with its subscription's URL and state (null when the subscription is gone). */
export interface DeliveryToAttempt {
  id: string;
  organization_id: number;
  url: string | null;
  active: boolean | null;
  payload: OrganizationEventEnvelope;
}

/** How one attempt of a delivery ended, as logged. */
export interface AttemptRecord {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A delivery with its attempts, in order. */
export interface DeliveryLogRow {
  id: string;
  event_id: string;
  event_type: DeliveredEventType;
  status: 'pending' | 'delivered' | 'retrying' | 'failed' | 'refused';
  payload: OrganizationEventEnvelope;
  created_at: Date;
  updated_at: Date;
  attempts: {
    attempt: number;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    at: string;
  }[];
}

/** An organization's signing secret (sealed), with the previous one while its overlap lasts. */
export interface SigningSecretRow {
  secret: string;
  created_at: Date;
  previous_secret: string | null;
  previous_expires_at: Date | null;
  previous_valid: boolean;
}

const SUBSCRIPTION_COLUMNS = 'id, url, events, active, description, created_at, updated_at';

const SELECT_SIGNING_SECRET = `SELECT secret, created_at, previous_secret, previous_expires_at,
                       coalesce(previous_expires_at > now(), false) AS previous_valid
                  FROM organization_webhook_secrets WHERE organization_id = $1`;

/**
 * The reads and writes of webhooks: organizations' subscriptions, their deliveries and attempts,
 * the signing secrets, and what post-call webhooks and organization events read of runs and
 * campaigns and write to a run's log.
 */
export function webhookStatements(manager: EntityManager) {
  return {
    /** The organization's subscriptions, newest first. */
    listSubscriptions(organizationId: number): Promise<SubscriptionRow[]> {
      return manager.query<SubscriptionRow[]>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE organization_id = $1 ORDER BY created_at DESC, id`,
        [organizationId],
      );
    },

    /** The organization's subscription; null when it is missing or another organization's. */
    async findSubscription(organizationId: number, id: string): Promise<SubscriptionRow | null> {
      const [row] = await manager.query<SubscriptionRow[]>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2`,
        [organizationId, id],
      );
      return row ?? null;
    },

    async subscriptionExists(organizationId: number, id: string): Promise<boolean> {
      const [exists] = await manager.query<unknown[]>(
        `SELECT 1 FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2`,
        [organizationId, id],
      );
      return exists !== undefined;
    },

    async insertSubscription(organizationId: number, id: string, fields: SubscriptionFields): Promise<SubscriptionRow> {
      const [row] = await manager.query<SubscriptionRow[]>(
        `INSERT INTO webhook_subscriptions (id, organization_id, url, events, active, description)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [id, organizationId, fields.url, fields.events, fields.active, fields.description],
      );
      if (!row) throw new Error('inserting a webhook subscription returned nothing');
      return row;
    },

    /** The subscription changed; null when it is missing or another organization's. */
    async updateSubscription(
      organizationId: number,
      id: string,
      fields: SubscriptionFields,
    ): Promise<SubscriptionRow | null> {
      const [rows] = await manager.query<[SubscriptionRow[], number]>(
        `UPDATE webhook_subscriptions SET url = $3, events = $4, active = $5, description = $6, updated_at = now()
        WHERE organization_id = $1 AND id = $2 RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [organizationId, id, fields.url, fields.events, fields.active, fields.description],
      );
      return rows[0] ?? null;
    },

    /** Deletes the subscription and its deliveries; false when it is missing or another organization's. */
    async deleteSubscription(organizationId: number, id: string): Promise<boolean> {
      const [, deleted] = await manager.query<[unknown[], number]>(
        `DELETE FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2`,
        [organizationId, id],
      );
      return deleted > 0;
    },

    /** Stores the event once for every active subscription of the organization that wants its type (again: nothing new). */
    async storeEventDeliveries(
      organizationId: number,
      eventId: string,
      type: OrganizationEventType,
      envelope: OrganizationEventEnvelope,
    ): Promise<void> {
      await manager.query(
        `INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, payload)
       SELECT gen_random_uuid(), s.organization_id, s.id, $2, $3, $4::jsonb
         FROM webhook_subscriptions s
        WHERE s.organization_id = $1 AND s.active AND $3 = ANY (s.events)
       ON CONFLICT (subscription_id, event_id) DO NOTHING`,
        [organizationId, eventId, type, JSON.stringify(envelope)],
      );
    },

    /** The deliveries of the organization's event, with their status. */
    deliveriesOfEvent(organizationId: number, eventId: string): Promise<{ id: string; status: string }[]> {
      return manager.query<{ id: string; status: string }[]>(
        `SELECT id, status FROM webhook_deliveries WHERE organization_id = $1 AND event_id = $2`,
        [organizationId, eventId],
      );
    },

    /** The delivery with its subscription's URL and state; null when the delivery is gone. */
    async deliveryToAttempt(id: string): Promise<DeliveryToAttempt | null> {
      const [row] = await manager.query<DeliveryToAttempt[]>(
        `SELECT d.id, d.organization_id, d.payload, s.url, s.active
         FROM webhook_deliveries d LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = $1`,
        [id],
      );
      return row ?? null;
    },

    /** A delivery not delivered becomes `failed` (or stays `refused`) for good. */
    async markGivenUp(id: string): Promise<void> {
      await manager.query(
        `UPDATE webhook_deliveries SET status = CASE WHEN status = 'refused' THEN 'refused' ELSE 'failed' END,
              updated_at = now()
        WHERE id = $1 AND status <> 'delivered'`,
        [id],
      );
    },

    /** The delivery's last attempt keeps its error, or gets this one. */
    async noteLastAttemptError(deliveryId: string, error: string): Promise<void> {
      await manager.query(
        `UPDATE webhook_delivery_attempts SET error = coalesce(error, $2)
        WHERE delivery_id = $1 AND attempt = (SELECT max(attempt) FROM webhook_delivery_attempts WHERE delivery_id = $1)`,
        [deliveryId, error],
      );
    },

    /** Stores a delivery of the event to the organization's subscription; false when there is no such subscription. */
    async insertSubscriptionDelivery(
      organizationId: number,
      subscriptionId: string,
      deliveryId: string,
      envelope: OrganizationEventEnvelope,
    ): Promise<boolean> {
      const inserted = await manager.query<{ id: string }[]>(
        `INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, payload)
       SELECT $1, organization_id, id, $3, $4, $5::jsonb FROM webhook_subscriptions
        WHERE organization_id = $2 AND id = $6
       RETURNING id`,
        [deliveryId, organizationId, envelope.id, envelope.type, JSON.stringify(envelope), subscriptionId],
      );
      return inserted.length > 0;
    },

    /** The subscription's deliveries (or the one with `deliveryId`), newest first, each with its attempts. */
    deliveriesOf(
      organizationId: number,
      subscriptionId: string,
      { limit, deliveryId }: { limit: number; deliveryId?: string },
    ): Promise<DeliveryLogRow[]> {
      return manager.query<DeliveryLogRow[]>(
        `SELECT d.id, d.event_id, d.event_type, d.status, d.payload, d.created_at, d.updated_at,
              coalesce((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'status_code', a.status_code,
                                                            'duration_ms', a.duration_ms, 'error', a.error, 'at', a.at)
                                         ORDER BY a.attempt)
                          FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempts
         FROM webhook_deliveries d
        WHERE d.organization_id = $1 AND d.subscription_id = $2 AND ($4::uuid IS NULL OR d.id = $4)
        ORDER BY d.created_at DESC, d.id
        LIMIT $3`,
        [organizationId, subscriptionId, limit, deliveryId ?? null],
      );
    },

    /** Logs the attempt (a retried one replaces its entry). */
    async recordAttempt(deliveryId: string, attempt: number, outcome: AttemptRecord): Promise<void> {
      await manager.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, duration_ms, error)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (delivery_id, attempt) DO UPDATE
            SET status_code = EXCLUDED.status_code, duration_ms = EXCLUDED.duration_ms,
                error = EXCLUDED.error, at = now()`,
        [deliveryId, attempt, outcome.statusCode, outcome.durationMs, outcome.error],
      );
    },

    /** The delivery's status after an attempt, unless it was delivered already. */
    async setDeliveryStatus(deliveryId: string, status: string, attempt: number): Promise<void> {
      await manager.query(
        `UPDATE webhook_deliveries SET status = $2, attempts = greatest(attempts, $3), updated_at = now()
          WHERE id = $1 AND status <> 'delivered'`,
        [deliveryId, status, attempt],
      );
    },

    /** The organization's signing secret; null when it has none yet. */
    async signingSecretOf(organizationId: number): Promise<SigningSecretRow | null> {
      const [row] = await manager.query<SigningSecretRow[]>(SELECT_SIGNING_SECRET, [organizationId]);
      return row ?? null;
    },

    /** Stores the organization's first secret; another stored meanwhile wins. */
    async insertSigningSecretIfNone(organizationId: number, sealedSecret: string): Promise<void> {
      await manager.query(
        `INSERT INTO organization_webhook_secrets (organization_id, secret) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO NOTHING`,
        [organizationId, sealedSecret],
      );
    },

    /**
     * The new secret replaces the current one, which keeps signing for `overlapSeconds`. One
     * statement: concurrent rotations queue on the row and each sees the secret the one before it wrote.
     */
    async rotateSigningSecret(
      organizationId: number,
      sealedSecret: string,
      overlapSeconds: number,
    ): Promise<{ created_at: Date; previous_expires_at: Date | null }> {
      const [row] = await manager.query<{ created_at: Date; previous_expires_at: Date | null }[]>(
        `INSERT INTO organization_webhook_secrets AS s (organization_id, secret) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO UPDATE
          SET previous_secret = s.secret,
              previous_expires_at = now() + make_interval(secs => $3),
              secret = EXCLUDED.secret,
              created_at = now()
       RETURNING created_at, previous_expires_at`,
        [organizationId, sealedSecret, overlapSeconds],
      );
      if (!row) throw new Error('rotating the webhook signing secret returned nothing');
      return row;
    },

    /** The run an event or a post-call webhook is about; throws when it does not exist. */
    runOrFail(runId: number): Promise<Run> {
      return manager.findOneByOrFail(Run, { id: runId });
    },

    /**
     * Merges `entry` (JSON) into the node's entry of `runs.logs.webhooks` in one statement, so
     * parallel deliveries never overwrite each other.
     */
    async mergeRunWebhookLog(runId: number, nodeId: string, entry: string): Promise<void> {
      await manager.query(
        `UPDATE runs
          SET logs = jsonb_set(
                COALESCE(logs, '{}'::jsonb), '{webhooks}',
                COALESCE(logs->'webhooks', '{}'::jsonb)
                  || jsonb_build_object($2::text, COALESCE(logs->'webhooks'->$2::text, '{}'::jsonb) || $3::jsonb))
        WHERE id = $1`,
        [runId, nodeId, entry],
      );
    },
  };
}

export type WebhookStatements = ReturnType<typeof webhookStatements>;

export const createWebhookRepository = (dataSource: DataSource) => repositoryOver(dataSource, webhookStatements);

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
