import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { campaignSettings, insertCampaign, startCampaignWorkflow, useCampaignTestFile } from '../helpers/campaigns';
import { REPO_ROOT, shellBlocks } from '../helpers/doc-examples';
import { testEnv } from '../helpers/test-env';

/**
 * The operator's command-line examples of docs/reference/temporal-names.md, run as written (the
 * campaign id put in) with the provisioned `temporal` CLI against a running campaign.
 */

const { services, taskQueue, bed, createWorker } = useCampaignTestFile('operator-cli');

it('lists, describes, queries, pauses, configures, resumes, awaits and replays a campaign', async () => {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'reference', 'temporal-names.md'), 'utf8');
  const [block] = shellBlocks(page);
  expect(block).toContain('pauseCampaign');

  const org = await bed().organization({ ring_seconds: 1, talk_seconds: 2 });
  const contacts = Array.from({ length: 6 }, (_, index) => ({
    phoneNumber: `+1415607${String(index).padStart(4, '0')}`,
  }));
  const { campaignId } = await insertCampaign(
    services.db.dataSource,
    org,
    contacts,
    campaignSettings({ max_concurrency: 1 }),
  );
  await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
  // The CLI decrypts payloads through the test's API, as it would through npm start's.
  const script = (block ?? '')
    .replaceAll('campaign-42', `campaign-${campaignId}`)
    .replaceAll('= 42', `= ${campaignId}`)
    .replaceAll('http://localhost:8000', bed().baseUrl);
  expect(script).toContain(`TEMPORAL_CODEC_ENDPOINT=${bed().baseUrl}/codec`);

  const worker = await createWorker();
  const run = await worker.runUntil(
    new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          PATH: `${dirname(testEnv('temporalCliPath'))}:${process.env.PATH ?? ''}`,
          TEMPORAL_ADDRESS: testEnv('temporalAddress'),
        },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (status) => resolve({ status, output }));
    }),
  );
  expect({ status: run.status, output: run.status === 0 ? '' : run.output }).toEqual({ status: 0, output: '' });
  expect(run.output).toContain(`campaign-${campaignId}`);
  expect(run.output).toContain('processed_rows');
  expect(run.output).toMatch(/REPLAY PASSED: campaign-\d+/);
  // The configuration sent from the command line took effect through the workflow.
  const [row] = await services.db.dataSource.query<{ max_concurrency: number; state: string }[]>(
    'SELECT max_concurrency, state FROM campaigns WHERE id = $1',
    [campaignId],
  );
  expect(row).toEqual({ max_concurrency: 5, state: 'completed' });
}, 300_000);
