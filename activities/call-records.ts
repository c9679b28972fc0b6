import type { DataSource } from 'typeorm';
import type { ConfigurationRow } from '../telephony/registry';
import { CallSetupError } from './call-errors';
import { TRANSCRIPT_URL_FORMAT } from '../domain/calls/call-settings';
import type { VoicemailAction } from '../domain/campaigns/settings';

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

/** The run's columns `finalizeRun` writes; the contexts and logs are merged into the stored ones. */
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

/**
 * The statements of a call's hot path, written by hand: each activity reads its run once, joined
 * with what it needs, and writes it once. Through the ORM a call costs 14 queries, and PostgreSQL
 * round trips and query building take a third of the worker's CPU.
 */
export function createCallRecords(dataSource: DataSource) {
  return {
    async load(runId: number): Promise<CallRecord> {
      const [row] = await dataSource.query<
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
      if (!row) throw new CallSetupError(`Run ${runId} does not exist`);
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
      await dataSource.query(
        `UPDATE runs SET provider_call_id = $2, state = 'running', updated_at = now() WHERE id = $1`,
        [runId, providerCallId],
      );
    },

    /**
     * Writes the outcome unless the run is already completed (the first outcome stands), and
     * returns the run's agent version (undefined if there is no such run), in one statement.
     */
    async complete(runId: number, outcome: RunOutcome): Promise<number | undefined> {
      const [row] = await dataSource.query<{ definition_id: number }[]>(
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
