import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { DataConverter, Payload } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { downloadRuns, historyJson } from '../../platform/replay';
import { campaignProgressQuery, campaignWorkflowId } from '../../workflows/definitions';

/** The unfinished attempts whose call workflows are saved too, at most. */
const CALLS_SAVED = 30;

/** Replaces every payload in `value` (a history or a describe answer) by its decoded form, in place. */
async function decodePayloads(value: unknown, converter: DataConverter): Promise<void> {
  if (value === null || typeof value !== 'object') return;
  const decode = async (payloads: Payload[]): Promise<Payload[]> => {
    let decoded = payloads;
    for (const codec of [...(converter.payloadCodecs ?? [])].reverse()) decoded = await codec.decode(decoded);
    return decoded;
  };
  const record = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(record)) {
    if (key === 'payloads' && Array.isArray(item)) record[key] = await decode(item as Payload[]);
    else if (key === 'encodedAttributes' && item) record[key] = (await decode([item]))[0];
    else await decodePayloads(item, converter);
  }
}

const failed = (error: unknown) => ({ error: String(error) });

/**
 * What a campaign that stopped short of completing shows, for the next look at it: its progress as
 * the workflow tells it, its pending activities and children, every run's history (payloads
 * decoded, so the run's own key is not needed), its unfinished attempts and their call workflows'
 * histories. Written to a new directory, whose path is returned.
 */
export async function saveCampaignDiagnostics(
  client: Client,
  dataConverter: DataConverter,
  dataSource: DataSource,
  campaignId: number,
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `campaign-${campaignId}-diagnostics-`));
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const workflowId = campaignWorkflowId(campaignId);
  const handle = client.workflow.getHandle(workflowId);

  write('progress.json', json(await handle.query(campaignProgressQuery).catch(failed)));
  const described = await handle.describe().then(
    async ({ raw }) => {
      await decodePayloads(raw, dataConverter);
      return raw;
    },
    (error: unknown) => failed(error),
  );
  write('describe.json', json(described));
  const saveRuns = async (id: string, prefix: string) => {
    try {
      for (const run of await downloadRuns(client, id)) {
        await decodePayloads(run.history, dataConverter);
        write(`${prefix}-${run.runId}.json`, historyJson(run));
      }
    } catch (error) {
      write(`${prefix}-error.json`, json(failed(error)));
    }
  };
  await saveRuns(workflowId, 'campaign');
  const attempts = await dataSource.query<{ temporal_workflow_id: string | null }[]>(
    `SELECT * FROM campaign_attempts WHERE campaign_id = $1 AND status <> 'finished' ORDER BY id`,
    [campaignId],
  );
  write('unfinished-attempts.json', json(attempts));
  const calls = attempts.flatMap((attempt) => (attempt.temporal_workflow_id ? [attempt.temporal_workflow_id] : []));
  for (const [index, id] of calls.slice(0, CALLS_SAVED).entries()) await saveRuns(id, `call-${index}`);
  write(
    'campaign-logs.json',
    json(await dataSource.query(`SELECT * FROM campaign_logs WHERE campaign_id = $1 ORDER BY id`, [campaignId])),
  );
  return dir;
}
