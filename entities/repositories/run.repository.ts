import type { DataSource, EntityManager } from 'typeorm';
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

/** Reads of runs by who may see them: their organization and agent, or the provider that carries the call. */
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
  };
}

export const createRunRepository = (dataSource: DataSource) => repositoryOver(dataSource, runStatements);

export type RunRepository = ReturnType<typeof createRunRepository>;

/**
 * A run's pre-call fetch, in one statement: the values it answered merged into `initial_context`,
 * and what happened into `logs.pre_call_fetch`.
 */
export async function recordPreCallFetch(
  manager: EntityManager,
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
