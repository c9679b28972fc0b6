import { spawn } from 'node:child_process';
import { appendFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import request from 'supertest';
import { provisionSchemathesis } from '../../scripts/schemathesis';
import { createApiKey, signUp } from '../helpers/accounts';
import { createAgent } from '../helpers/agents';
import { campaignTestBed, campaignWorker, type CampaignTestBed } from '../helpers/campaigns';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig } from '../helpers/telephony';

/**
 * The OpenAPI document is a contract: an independent fuzzer (schemathesis, every check and phase,
 * settings in schemathesis.toml) drives the real service from the document alone and must find no
 * server error, no response outside the document and no accepted input the document refuses.
 */
const services = useTestServices();
const TASK_QUEUE = 'contract-tests';
let bed: CampaignTestBed;
let worker: Worker;
let running: Promise<void>;
let apiKey: string;
let sessionToken: string;

const FUZZER_TIMEOUT_MS = 15 * 60_000;
/** The fuzzer's whole output, kept for reading after a failure. */
const LOG_PATH = join(tmpdir(), `switchboard-contract-${process.pid}.log`);
/**
 * Extra `schemathesis run` options, e.g. `--seed 7` to try another seed or `--phases coverage`
 * `--include-operation-id createCampaign` to reproduce one finding; unset in CI.
 */
const EXTRA_ARGS = (process.env.CONTRACT_SCHEMATHESIS_ARGS ?? '').split(' ').filter(Boolean);

/**
 * Runs schemathesis with its output kept in LOG_PATH, not relayed: its pytest-style closing line
 * would read, to tools that scan CI logs, as a run of no tests. A failure shows the output's end.
 */
function runSchemathesis(executable: string, args: string[]): Promise<{ code: number | null; tail: string }> {
  const serviceHost = new URL(bed.baseUrl).hostname;
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SWITCHBOARD_CONTRACT_API_KEY: apiKey,
        SWITCHBOARD_CONTRACT_SESSION_TOKEN: sessionToken,
        NO_COLOR: '1',
        // Straight to the service, never through a proxy the machine may name; it also spares
        // the HTTP client two scans of the environment for proxies on each of its ~12,000 requests.
        NO_PROXY: serviceHost,
        no_proxy: serviceHost,
      },
    });
    const log = createWriteStream(LOG_PATH, { flags: 'a' });
    let tail = '';
    const relay = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-60_000);
      log.write(chunk);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.on('error', reject);
    child.on('exit', (code) => log.end(() => resolve({ code, tail })));
  });
}

// Inside a describe, so the worker stops before the file's Temporal connection closes (hooks of
// one level run in the order they were declared).
describe('the whole service', () => {
  beforeAll(async () => {
    // The whole service: the API on 127.0.0.1 only (the fuzzer sends hostile input) and a worker,
    // so health checks, calls and campaigns run as they would in production.
    bed = await campaignTestBed(services, TASK_QUEUE);
    worker = await campaignWorker(services, TASK_QUEUE, bed.baseUrl);
    running = worker.run();
    const api = bed.baseUrl;

    // An account with a little of everything, so operations on existing resources are reached too.
    // Ids clear of the boundary values the fuzzer tries (1 and 2^31 - 1), so it never archives the key it runs with.
    await services.db.dataSource.query(`SELECT setval('api_keys_id_seq', 1234567)`);
    const account = await signUp(api);
    sessionToken = account.token;
    apiKey = (await createApiKey(api, sessionToken, 'contract')).api_key;
    const agent = await createAgent(api, sessionToken);
    const configuration = await createTelephonyConfig(api, sessionToken);
    await createPhoneNumber(api, sessionToken, configuration.id, { address: '+14155550100' });
    const upload = await request(api)
      .post('/api/v1/campaign/sources?file_name=contacts.csv')
      .auth(sessionToken, { type: 'bearer' })
      .set('Content-Type', 'text/csv')
      .send('phone_number,first_name\n+14155550101,Ada\n+14155550102,Grace\n');
    if (upload.status !== 201) throw new Error(`upload answered ${upload.status}: ${JSON.stringify(upload.body)}`);
    const campaign = await request(api)
      .post('/api/v1/campaign/create')
      .auth(sessionToken, { type: 'bearer' })
      .send({ name: 'contract', workflow_id: agent.id, source_type: 'csv', source_id: upload.body.source_id });
    if (campaign.status !== 201)
      throw new Error(`campaign answered ${campaign.status}: ${JSON.stringify(campaign.body)}`);
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await bed?.close();
  });

  test(
    'schemathesis finds no server error, no undocumented answer and no schema violation',
    async () => {
      // Its install's lines go to the same log as its run: printed only with a failure.
      const executable = await provisionSchemathesis((line) => appendFileSync(LOG_PATH, `[contract] ${line}\n`));
      const { code, tail } = await runSchemathesis(executable, [
        '--config-file',
        join(__dirname, 'schemathesis.toml'),
        'run',
        ...EXTRA_ARGS,
        `${bed.baseUrl}/api/v1/openapi.json`,
      ]);
      if (code !== 0) {
        throw new Error(
          `schemathesis found contract failures (exit ${code}); the whole report is in ${LOG_PATH}, ` +
            `its end:\n${tail.slice(-20_000)}`,
        );
      }
    },
    FUZZER_TIMEOUT_MS,
  );
});
