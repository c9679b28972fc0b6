import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { TRANSCRIPT_URL_FORMAT } from '../../domain/calls/call-settings';
import type { VoicemailAction } from '../../domain/campaigns/settings';
import type { ConfigurationRow } from '../../telephony/registry';
import { Run } from '../run.entity';
import { repositoryOver } from './repository';

/** The run a provider's status or transfer webhook names, with the configuration that checks its signature. */
export interface WebhookTarget {
  id: number;
  is_completed: boolean;
  provider_call_id: string | null;
  temporal_workflow_id: string | null;
  configuration: ConfigurationRow;
}

/** A run as its call activities need it, with its telephony configuration, read in one statement. */
export interface CallRecord {
  id: number;
  organizationId: number;
  /** The agent (`workflow_id` in the interface). */
  agentId: number;
  agentVersionId: number;
  provider: string;
  calledNumber: string | null;
  callerNumber: string | null;
  providerCallId: string | null;
  initialContext: Record<string, unknown>;
  /** The agent's `call_disposition_codes`. */
  callDispositionCodes: { disposition_codes: unknown[] };
  /** The `voicemail_action` of the run's campaign; null for a call placed through the API. */
  voicemailAction: VoicemailAction | null;
  configuration: (ConfigurationRow & { id: number; callsPerSecond: number | null }) | null;
}

/** The run's columns a call's outcome writes; the contexts and logs are merged into the stored ones. */
export interface RunOutcome {
  callDurationSeconds: number;
  platformTokenUsage: number;
  chargeUsd: number;
  disposition: string;
  gatheredContext: Record<string, unknown>;
  logs: Record<string, unknown>;
  /** Whether the run gets a transcript URL (`TRANSCRIPT_URL_FORMAT`). */
  hasTranscript: boolean;
  usageInfo: Record<string, unknown>;
  costInfo: Record<string, unknown>;
}

/** The columns of an outbound run written whole in one statement when its call is placed. */
export interface OutboundRunRow {
  id: number;
  name: string;
  temporalWorkflowId: string;
  organizationId: number;
  agentId: number;
  agentVersionId: number;
  provider: string;
  telephonyConfigurationId: number;
  calledNumber: string;
  callerNumber: string | null;
  initialContext: Record<string, unknown>;
}

/** The columns of a web call's run (provider `web`, inbound, running from the start). */
export interface WebRunRow {
  organizationId: number;
  agentId: number;
  agentVersionId: number;
  provider: string;
  providerCallId: string;
  initialContext: Record<string, unknown>;
}

/**
 * Reads and writes of runs: by who may see them (their organization and agent, or the provider
 * that carries the call), their creation when a call is placed or taken, and a call's hot path.
 */
export function runStatements(manager: EntityManager) {
  const rows = manager.getRepository(Run);
  return {
    /** The run of the organization's agent, with its id and logs only; null otherwise. */
    findLogs(organizationId: number, agentId: number, runId: number): Promise<Pick<Run, 'id' | 'logs'> | null> {
      return rows.findOne({
        where: { id: runId, agentId, organizationId },
        select: { id: true, logs: true },
      });
    },

    /** The run of the organization's agent, with its id and recording location only; null otherwise. */
    findRecording(
      organizationId: number,
      agentId: number,
      runId: number,
    ): Promise<Pick<Run, 'id' | 'recordingUrl'> | null> {
      return rows.findOne({
        where: { id: runId, agentId, organizationId },
        select: { id: true, recordingUrl: true },
      });
    },

    /** The run with that id carried by that provider; null otherwise. */
    findOfProvider(provider: string, runId: number): Promise<Run | null> {
      return rows.findOneBy({ id: runId, provider });
    },

    /** The run of the provider's call with that id; null when none is. */
    findByProviderCall(provider: string, providerCallId: string): Promise<Run | null> {
      return rows.findOneBy({ provider, providerCallId });
    },

    /** The run a webhook names, with its configuration's provider and credentials: one statement. */
    async webhookTarget(runId: number, provider: string): Promise<WebhookTarget | null> {
      const [row] = await manager.query<(Omit<WebhookTarget, 'configuration'> & ConfigurationRow)[]>(
        `SELECT r.id, r.is_completed, r.temporal_workflow_id, r.provider_call_id, c.provider, c.credentials
           FROM runs r JOIN telephony_configurations c ON c.id = r.telephony_configuration_id
          WHERE r.id = $1 AND r.mode = $2`,
        [runId, provider],
      );
      if (!row) return null;
      const { provider: configured, credentials, ...run } = row;
      return { ...run, configuration: { provider: configured, credentials } };
    },

    /** The run with that id; throws when there is none. */
    getById(runId: number): Promise<Run> {
      return rows.findOneByOrFail({ id: runId });
    },

    /** The run with that id among one telephony configuration's runs; null otherwise. */
    findOfConfiguration(telephonyConfigurationId: number, runId: number): Promise<Run | null> {
      return rows.findOneBy({ id: runId, telephonyConfigurationId });
    },

    /** The run of one telephony configuration whose provider call id is that; null otherwise. */
    findByCallOfConfiguration(telephonyConfigurationId: number, providerCallId: string): Promise<Run | null> {
      return rows.findOneBy({ providerCallId, telephonyConfigurationId });
    },

    /**
     * A run id taken from the runs' sequence before the run is written, so that its row is written
     * whole in one statement: its name and workflow id contain it.
     */
    async nextRunId(): Promise<number> {
      const [row] = await manager.query<{ id: number }[]>(
        `SELECT nextval(pg_get_serial_sequence('runs', 'id'))::int AS id`,
      );
      if (!row) throw new Error('PostgreSQL gave no run id');
      return row.id;
    },

    /** Writes a new outbound call's run, whole. */
    async insertOutboundRun(run: OutboundRunRow): Promise<void> {
      await manager.query(
        `INSERT INTO runs (id, name, temporal_workflow_id, organization_id, workflow_id, definition_id, mode,
                       call_type, telephony_configuration_id, called_number, caller_number, initial_context)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', $8, $9, $10, $11)`,
        [
          run.id,
          run.name,
          run.temporalWorkflowId,
          run.organizationId,
          run.agentId,
          run.agentVersionId,
          run.provider,
          run.telephonyConfigurationId,
          run.calledNumber,
          run.callerNumber,
          JSON.stringify(run.initialContext),
        ],
      );
    },

    /** Writes a web call's run, named `call` until its id is known; its id. */
    async insertWebRun(run: WebRunRow): Promise<number> {
      const [row] = await manager.query<{ id: number }[]>(
        `INSERT INTO runs (name, organization_id, workflow_id, definition_id, mode, call_type, state,
                         provider_call_id, initial_context)
       VALUES ('call', $1, $2, $3, $4, 'inbound', 'running', $5, $6) RETURNING id`,
        [
          run.organizationId,
          run.agentId,
          run.agentVersionId,
          run.provider,
          run.providerCallId,
          JSON.stringify(run.initialContext),
        ],
      );
      if (!row) throw new Error('PostgreSQL created no run');
      return row.id;
    },

    /** Names a web call's run and its call workflow once its id is known. */
    async nameWebRun(runId: number, name: string, temporalWorkflowId: string): Promise<void> {
      await manager.query('UPDATE runs SET name = $2, temporal_workflow_id = $3 WHERE id = $1', [
        runId,
        name,
        temporalWorkflowId,
      ]);
    },

    /** Holds the lock of one provider call's inbound run until the transaction ends. */
    async lockInboundCall(provider: string, providerCallId: string): Promise<void> {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`inbound:${provider}:${providerCallId}`]);
    },

    /** The inbound run of that provider call on that configuration; null when none is. */
    findInboundOfCall(provider: string, providerCallId: string, telephonyConfigurationId: number): Promise<Run | null> {
      return rows.findOneBy({ provider, callType: 'inbound', providerCallId, telephonyConfigurationId });
    },

    /** Saves a new inbound call's run, built from its fields (named `call` until its id is known). */
    insertInboundRun(fields: DeepPartial<Run>): Promise<Run> {
      return rows.save(rows.create(fields));
    },

    /** Names an inbound call's run and its call workflow once its id is known. */
    async nameInboundRun(runId: number, name: string, temporalWorkflowId: string): Promise<void> {
      await rows.update({ id: runId }, { name, temporalWorkflowId });
    },

    /** The run's call workflow could not start: the run is over, with `call_status` `error`. */
    async markStartFailed(runId: number): Promise<void> {
      await rows.update(
        { id: runId },
        {
          isCompleted: true,
          state: 'completed',
          gatheredContext: { call_status: 'error', mapped_call_disposition: 'error' },
        },
      );
    },

    /*
     * The statements of a call's hot path, written by hand: each call activity reads its run once,
     * joined with what it needs, and writes it once. Through the ORM a call costs 14 queries, and
     * PostgreSQL round trips and query building take a third of the worker's CPU.
     */

    /** The run as its call activities need it, in one statement; null when there is no such run. */
    async callRecord(runId: number): Promise<CallRecord | null> {
      const [row] = await manager.query<
        (Omit<CallRecord, 'configuration'> & {
          configurationId: number | null;
          configurationProvider: string | null;
          credentials: Record<string, unknown> | null;
          callsPerSecond: string | null;
        })[]
      >(
        `SELECT r.id, r.organization_id AS "organizationId", r.workflow_id AS "agentId", r.definition_id AS "agentVersionId", r.mode AS provider,
                r.called_number AS "calledNumber", r.caller_number AS "callerNumber",
                r.provider_call_id AS "providerCallId", r.initial_context AS "initialContext",
                a.call_disposition_codes AS "callDispositionCodes", c.id AS "configurationId",
                c.provider AS "configurationProvider", c.credentials, c.calls_per_second AS "callsPerSecond",
                cp.voicemail_action AS "voicemailAction"
           FROM runs r
           JOIN agents a ON a.id = r.workflow_id
           LEFT JOIN telephony_configurations c ON c.id = r.telephony_configuration_id
           LEFT JOIN campaigns cp ON cp.id = r.campaign_id
          WHERE r.id = $1`,
        [runId],
      );
      if (!row) return null;
      const { configurationId, configurationProvider, credentials, callsPerSecond, ...record } = row;
      return {
        ...record,
        configuration:
          configurationProvider && configurationId !== null
            ? {
                id: configurationId,
                provider: configurationProvider,
                credentials: credentials ?? {},
                callsPerSecond: callsPerSecond === null ? null : Number(callsPerSecond),
              }
            : null,
      };
    },

    /** The dial went out: the run is running, with the provider's id of its call. */
    async markDialed(runId: number, providerCallId: string): Promise<void> {
      await manager.query(
        `UPDATE runs SET provider_call_id = $2, state = 'running', updated_at = now() WHERE id = $1`,
        [runId, providerCallId],
      );
    },

    /**
     * Writes the outcome unless the run is already completed (the first outcome stands), and
     * returns the run's agent version (undefined if there is no such run), in one statement.
     */
    async complete(runId: number, outcome: RunOutcome): Promise<number | undefined> {
      const [row] = await manager.query<{ definition_id: number }[]>(
        `WITH outcome AS (
         UPDATE runs
            SET is_completed = true, state = 'completed', updated_at = now(),
                call_duration_seconds = $2, platform_token_usage = $3, charge_usd = $4, disposition = $5,
                gathered_context = COALESCE(gathered_context, '{}'::jsonb) || $6::jsonb,
                logs = COALESCE(logs, '{}'::jsonb) || $7::jsonb,
                transcript_url = CASE WHEN $8 THEN format($9, workflow_id, id) END,
                usage_info = $10::jsonb, cost_info = $11::jsonb
          WHERE id = $1 AND NOT is_completed)
         SELECT definition_id FROM runs WHERE id = $1`,
        [
          runId,
          outcome.callDurationSeconds,
          outcome.platformTokenUsage,
          outcome.chargeUsd,
          outcome.disposition,
          JSON.stringify(outcome.gatheredContext),
          JSON.stringify(outcome.logs),
          outcome.hasTranscript,
          TRANSCRIPT_URL_FORMAT,
          JSON.stringify(outcome.usageInfo),
          JSON.stringify(outcome.costInfo),
        ],
      );
      return row?.definition_id;
    },
  };
}

export type RunStatements = ReturnType<typeof runStatements>;

export const createRunRepository = (dataSource: DataSource) => repositoryOver(dataSource, runStatements);

export type RunRepository = ReturnType<typeof createRunRepository>;

/**
 * A run's pre-call fetch, in one statement: the values it answered merged into `initial_context`,
 * and what happened into `logs.pre_call_fetch`.
 */
export async function recordPreCallFetch(
  { manager }: DataSource,
  runId: number,
  fetched: { context: Record<string, unknown>; log: object },
): Promise<void> {
  await manager.query(
    `UPDATE runs
            SET initial_context = COALESCE(initial_context, '{}'::jsonb) || $2::jsonb,
                logs = COALESCE(logs, '{}'::jsonb) || jsonb_build_object('pre_call_fetch', $3::jsonb),
                updated_at = now()
          WHERE id = $1`,
    [runId, JSON.stringify(fetched.context), JSON.stringify(fetched.log)],
  );
}
