import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tables every part of the interface needs, created together so later changes extend them.
 * Foreign keys to an organization cascade: deleting a tenant removes all of its data.
 */
export class InitialSchema1795000000000 implements MigrationInterface {
  name = 'InitialSchema1795000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id serial PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email text NOT NULL,
        name text,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Emails compare case-insensitively; the application stores them lower-cased.
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`);
    await q.query(`CREATE INDEX users_organization_id_idx ON users (organization_id)`);

    await q.query(`
      CREATE TABLE api_keys (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        is_active boolean NOT NULL DEFAULT true,
        last_used_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id)`);

    await q.query(`
      CREATE TABLE telephony_configurations (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        provider text NOT NULL,
        credentials jsonb NOT NULL DEFAULT '{}',
        is_default_outbound boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, name)
      )`);
    // At most one default outbound configuration per organization.
    await q.query(`
      CREATE UNIQUE INDEX telephony_configurations_one_default_idx
        ON telephony_configurations (organization_id) WHERE is_default_outbound`);

    await q.query(`
      CREATE TABLE agents (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_uuid uuid NOT NULL UNIQUE,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        current_definition_id integer,
        call_disposition_codes jsonb NOT NULL DEFAULT '{"disposition_codes": []}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX agents_organization_id_idx ON agents (organization_id)`);
    await q.query(`
      CREATE TABLE agent_versions (
        id serial PRIMARY KEY,
        agent_id integer NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        version_number integer NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
        workflow_definition jsonb NOT NULL,
        workflow_configurations jsonb NOT NULL DEFAULT '{}',
        template_context_variables jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_id, version_number)
      )`);
    await q.query(`
      ALTER TABLE agents ADD CONSTRAINT agents_current_definition_fk
        FOREIGN KEY (current_definition_id) REFERENCES agent_versions(id) DEFERRABLE INITIALLY DEFERRED`);

    await q.query(`
      CREATE TABLE phone_numbers (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        telephony_configuration_id integer NOT NULL REFERENCES telephony_configurations(id) ON DELETE CASCADE,
        address text NOT NULL,
        address_normalized text NOT NULL,
        address_type text NOT NULL CHECK (address_type IN ('pstn', 'sip_uri', 'sip_extension')),
        country_code text,
        label text,
        inbound_workflow_id integer REFERENCES agents(id) ON DELETE SET NULL,
        is_active boolean NOT NULL DEFAULT true,
        is_default_caller_id boolean NOT NULL DEFAULT false,
        extra_metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, address_normalized)
      )`);
    // At most one default caller id per configuration.
    await q.query(`
      CREATE UNIQUE INDEX phone_numbers_one_default_caller_idx
        ON phone_numbers (telephony_configuration_id) WHERE is_default_caller_id`);

    await q.query(`
      CREATE TABLE campaign_sources (
        id text PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        file_name text NOT NULL,
        total_rows integer NOT NULL,
        columns jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE campaign_contacts (
        id bigserial PRIMARY KEY,
        source_id text NOT NULL REFERENCES campaign_sources(id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        phone_number text NOT NULL,
        timezone text,
        initial_context jsonb NOT NULL DEFAULT '{}',
        UNIQUE (source_id, row_number)
      )`);

    await q.query(`
      CREATE TABLE campaigns (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        workflow_id integer NOT NULL REFERENCES agents(id),
        source_type text NOT NULL DEFAULT 'csv',
        source_id text NOT NULL REFERENCES campaign_sources(id),
        -- RESTRICT: a configuration referenced by a campaign cannot be deleted (409 in the API).
        telephony_configuration_id integer REFERENCES telephony_configurations(id) ON DELETE RESTRICT,
        state text NOT NULL DEFAULT 'draft'
          CHECK (state IN ('draft', 'running', 'paused', 'completed', 'failed', 'cancelled')),
        retry_config jsonb NOT NULL,
        max_concurrency integer NOT NULL DEFAULT 10,
        schedule_config jsonb,
        circuit_breaker jsonb NOT NULL,
        total_rows integer,
        processed_rows integer NOT NULL DEFAULT 0,
        failed_rows integer NOT NULL DEFAULT 0,
        executed_count integer NOT NULL DEFAULT 0,
        total_queued_count integer NOT NULL DEFAULT 0,
        parent_campaign_id integer REFERENCES campaigns(id) ON DELETE SET NULL,
        redialed_campaign_id integer REFERENCES campaigns(id) ON DELETE SET NULL,
        started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await q.query(`CREATE INDEX campaigns_organization_state_idx ON campaigns (organization_id, state)`);
    await q.query(`
      CREATE TABLE campaign_attempts (
        id serial PRIMARY KEY,
        campaign_id integer NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        contact_id bigint NOT NULL REFERENCES campaign_contacts(id) ON DELETE CASCADE,
        attempt_number integer NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'dialing', 'finished')),
        outcome text,
        run_id integer,
        temporal_workflow_id text NOT NULL UNIQUE,
        scheduled_for timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (campaign_id, contact_id, attempt_number)
      )`);
    await q.query(`
      CREATE TABLE campaign_logs (
        id serial PRIMARY KEY,
        campaign_id integer NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        level text NOT NULL,
        event text NOT NULL,
        message text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX campaign_logs_campaign_idx ON campaign_logs (campaign_id, id)`);

    await q.query(`
      CREATE TABLE runs (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_id integer NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        definition_id integer NOT NULL REFERENCES agent_versions(id),
        name text NOT NULL,
        mode text NOT NULL,
        call_type text NOT NULL DEFAULT 'outbound' CHECK (call_type IN ('inbound', 'outbound')),
        state text NOT NULL DEFAULT 'initialized' CHECK (state IN ('initialized', 'running', 'completed')),
        is_completed boolean NOT NULL DEFAULT false,
        campaign_id integer REFERENCES campaigns(id) ON DELETE SET NULL,
        campaign_attempt_id integer REFERENCES campaign_attempts(id) ON DELETE SET NULL,
        telephony_configuration_id integer REFERENCES telephony_configurations(id) ON DELETE SET NULL,
        caller_number text,
        called_number text,
        temporal_workflow_id text UNIQUE,
        provider_call_id text,
        recording_url text,
        transcript_url text,
        call_duration_seconds integer NOT NULL DEFAULT 0,
        platform_token_usage numeric NOT NULL DEFAULT 0,
        charge_usd numeric NOT NULL DEFAULT 0,
        disposition text,
        cost_info jsonb,
        usage_info jsonb NOT NULL DEFAULT '{}',
        initial_context jsonb NOT NULL DEFAULT '{}',
        gathered_context jsonb NOT NULL DEFAULT '{}',
        logs jsonb NOT NULL DEFAULT '{}',
        annotations jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The usage report and the per-agent list both page by creation time.
    await q.query(`CREATE INDEX runs_organization_created_idx ON runs (organization_id, created_at DESC)`);
    await q.query(`CREATE INDEX runs_workflow_created_idx ON runs (workflow_id, created_at DESC)`);
    await q.query(`CREATE INDEX runs_campaign_idx ON runs (campaign_id) WHERE campaign_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'runs',
      'campaign_logs',
      'campaign_attempts',
      'campaigns',
      'campaign_contacts',
      'campaign_sources',
      'phone_numbers',
      'agents',
      'agent_versions',
      'telephony_configurations',
      'api_keys',
      'users',
      'organizations',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table} CASCADE`);
    }
  }
}
