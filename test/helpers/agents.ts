import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { TestServer } from './accounts';

/** A minimal valid definition: start → agent → end, with `{{first_name}}` in the start prompt. */
export function sampleDefinition(prompt = 'Hello {{first_name}}, this is a reminder call.') {
  return {
    nodes: [
      { id: 'start', type: 'startCall', position: { x: 0, y: 0 }, data: { name: 'Start', prompt } },
      { id: 'talk', type: 'agentNode', position: { x: 0, y: 100 }, data: { name: 'Talk', prompt: 'Confirm.' } },
      { id: 'end', type: 'endCall', position: { x: 0, y: 200 }, data: { name: 'End', prompt: 'Say goodbye.' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'talk', data: { label: 'Continue', condition: 'The person answered' } },
      { id: 'e2', source: 'talk', target: 'end', data: { label: 'Done', condition: 'Confirmed' } },
    ],
  };
}

export type SampleDefinition = ReturnType<typeof sampleDefinition>;

export interface CreatedAgent {
  id: number;
  workflow_uuid: string;
  current_definition_id: number;
  workflow_definition: { nodes: { id: string; type: string; data: Record<string, unknown> }[] };
}

/** Creates an agent through the API. */
export async function createAgent(
  server: TestServer,
  token: string,
  definition: object = sampleDefinition(),
  name = 'Reminder agent',
): Promise<CreatedAgent> {
  const res = await request(server)
    .post('/api/v1/workflow/create/definition')
    .auth(token, { type: 'bearer' })
    .send({ name, workflow_definition: definition });
  if (res.status !== 201) throw new Error(`agent creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as CreatedAgent;
}

export interface RunRow {
  workflowId: number;
  definitionId: number;
  organizationId: number;
  createdAt?: string;
  durationSeconds?: number;
  tokens?: number;
  callerNumber?: string;
  calledNumber?: string;
  disposition?: string;
  campaignId?: number | null;
  isCompleted?: boolean;
  callType?: 'inbound' | 'outbound';
}

/** Inserts one run directly (the call engine writes runs; no route creates them); returns its id. */
export async function insertRun(dataSource: DataSource, run: RunRow): Promise<number> {
  const [row] = await dataSource.query<{ id: number }[]>(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, call_type, is_completed, campaign_id,
                       call_duration_seconds, platform_token_usage, created_at, initial_context, gathered_context)
     VALUES ($1, $2, $3, 'run', 'simulator', $4, $5, $6, $7, $8, coalesce($9::timestamptz, now()), $10, $11)
     RETURNING id`,
    [
      run.organizationId,
      run.workflowId,
      run.definitionId,
      run.callType ?? 'outbound',
      run.isCompleted ?? true,
      run.campaignId ?? null,
      run.durationSeconds ?? 0,
      run.tokens ?? 0,
      run.createdAt ?? null,
      JSON.stringify({
        ...(run.callerNumber ? { caller_number: run.callerNumber } : {}),
        ...(run.calledNumber ? { called_number: run.calledNumber } : {}),
      }),
      JSON.stringify(run.disposition ? { mapped_call_disposition: run.disposition } : {}),
    ],
  );
  if (!row) throw new Error('run insert returned nothing');
  return row.id;
}

/** A campaign row for runs to point at (campaign routes are another feature); returns its id. */
export async function insertCampaign(dataSource: DataSource, organizationId: number, agentId: number) {
  const sourceId = `source-${Math.random().toString(36).slice(2)}`;
  await dataSource.query(
    `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns) VALUES ($1, $2, 'c.csv', 0, '[]')`,
    [sourceId, organizationId],
  );
  const [row] = await dataSource.query<{ id: number }[]>(
    `INSERT INTO campaigns (organization_id, name, workflow_id, source_id, retry_config, circuit_breaker)
     VALUES ($1, 'campaign', $2, $3, '{}', '{}') RETURNING id`,
    [organizationId, agentId, sourceId],
  );
  if (!row) throw new Error('campaign insert returned nothing');
  return row.id;
}
