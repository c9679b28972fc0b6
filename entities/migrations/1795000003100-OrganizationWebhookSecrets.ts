import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each organization's post-call webhook signing secret, sealed under SECRETS_KEY like telephony
 * credentials, so a receiver holding one organization's secret cannot sign deliveries to another.
 * After a rotation the previous secret still signs until `previous_expires_at`. Rows are created on
 * first need (the first delivery or rotation): sealing needs SECRETS_KEY, which SQL does not have.
 */
export class OrganizationWebhookSecrets1795000003100 implements MigrationInterface {
  name = 'OrganizationWebhookSecrets1795000003100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE organization_webhook_secrets (
         organization_id integer PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
         secret text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         previous_secret text,
         previous_expires_at timestamptz,
         CONSTRAINT organization_webhook_secrets_previous_check
           CHECK ((previous_secret IS NULL) = (previous_expires_at IS NULL))
       )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE organization_webhook_secrets`);
  }
}
