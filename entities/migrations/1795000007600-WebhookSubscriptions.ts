import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations' webhook subscriptions (events sent to a URL of theirs), each delivery of an event
 * to a subscription, and each attempt of a delivery: what the delivery log shows.
 */
export class WebhookSubscriptions1795000007600 implements MigrationInterface {
  name = 'WebhookSubscriptions1795000007600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_subscriptions (
                     id uuid PRIMARY KEY,
                     organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
                     url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
                     events text[] NOT NULL CHECK (cardinality(events) >= 1),
                     active boolean NOT NULL DEFAULT true,
                     description text NOT NULL DEFAULT '' CHECK (length(description) <= 4000),
                     created_at timestamptz NOT NULL DEFAULT now(),
                     updated_at timestamptz NOT NULL DEFAULT now())`);
    // Lists are per organization, newest first; an event looks up the organization's active ones.
    await q.query(
      `CREATE INDEX webhook_subscriptions_organization_created
         ON webhook_subscriptions (organization_id, created_at DESC, id)`,
    );
    await q.query(`CREATE TABLE webhook_deliveries (
                     id uuid PRIMARY KEY,
                     organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
                     subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
                     event_id uuid NOT NULL,
                     event_type text NOT NULL,
                     payload jsonb NOT NULL,
                     status text NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'delivered', 'retrying', 'failed', 'refused')),
                     attempts integer NOT NULL DEFAULT 0,
                     created_at timestamptz NOT NULL DEFAULT now(),
                     updated_at timestamptz NOT NULL DEFAULT now(),
                     UNIQUE (subscription_id, event_id))`);
    await q.query(
      `CREATE INDEX webhook_deliveries_subscription_created ON webhook_deliveries (subscription_id, created_at DESC, id)`,
    );
    await q.query(`CREATE TABLE webhook_delivery_attempts (
                     delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
                     attempt integer NOT NULL CHECK (attempt >= 1),
                     status_code integer,
                     duration_ms integer NOT NULL CHECK (duration_ms >= 0),
                     error text,
                     at timestamptz NOT NULL DEFAULT now(),
                     PRIMARY KEY (delivery_id, attempt))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_delivery_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_subscriptions`);
  }
}
