import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { campaignWorkflowId, type CampaignSettings, type CampaignWorkflowInput } from '../../workflows/definitions';
import {
  AgentIdAttribute,
  CampaignIdAttribute,
  CampaignStateAttribute,
  OrganizationIdAttribute,
} from '../../workflows/search-attributes';
import { buildTestApp } from './app';
import { callingOrganization, type CallingOrganization } from './calls';
import { useTestServices, type TestServices } from './services';
import { callWorker } from './call-worker';
import { TEST_SECRETS_KEY } from './telephony';
import { uniqueTaskQueue } from './temporal';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_RETRY_CONFIG,
  DEFAULT_VOICEMAIL_ACTION,
} from '../../domain/campaigns/settings';
import type { WaitForOptions } from './wait-for';

/** The decided defaults, with what a test changes. */
export function campaignSettings(change: Partial<CampaignSettings> = {}): CampaignSettings {
  return {
    name: 'Test campaign',
    max_concurrency: DEFAULT_MAX_CONCURRENCY,
    retry_config: { ...DEFAULT_RETRY_CONFIG },
    schedule_config: null,
    circuit_breaker: { ...DEFAULT_CIRCUIT_BREAKER },
    voicemail_action: DEFAULT_VOICEMAIL_ACTION,
    fallback: null,
    ...change,
  };
}

export interface ContactInput {
  phoneNumber: string;
  timezone?: string | null;
  context?: Record<string, unknown>;
}

export interface InsertedCampaign {
  campaignId: number;
  sourceId: string;
  /** By row number. */
  contactIds: string[];
}

/**
 * A contact source and a draft campaign written straight to PostgreSQL (the upload and create
 * routes have their own tests), contacts in one multi-row insert so thousands take a moment.
 */
export async function insertCampaign(
  dataSource: DataSource,
  org: CallingOrganization,
  contacts: ContactInput[],
  settings: CampaignSettings = campaignSettings(),
): Promise<InsertedCampaign> {
  const sourceId = `src_${randomUUID()}`;
  await dataSource.query(
    `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns)
     VALUES ($1, $2, 'contacts.csv', $3, '["phone_number", "first_name"]')`,
    [sourceId, org.owner.user.organization_id, contacts.length],
  );
  const rows = await dataSource.query<{ id: string }[]>(
    `INSERT INTO campaign_contacts (source_id, row_number, phone_number, timezone, initial_context)
     SELECT $1, x.row_number, x.phone_number, x.timezone, x.initial_context
       FROM jsonb_to_recordset($2::jsonb) AS x(row_number integer, phone_number text, timezone text, initial_context jsonb)
     ORDER BY x.row_number RETURNING id`,
    [
      sourceId,
      JSON.stringify(
        contacts.map((contact, index) => ({
          row_number: index + 1,
          phone_number: contact.phoneNumber,
          timezone: contact.timezone ?? null,
          initial_context: contact.context ?? { first_name: 'Ada' },
        })),
      ),
    ],
  );
  const [campaign] = await dataSource.query<{ id: number }[]>(
    `INSERT INTO campaigns (organization_id, name, workflow_id, source_id, retry_config, max_concurrency,
                            schedule_config, circuit_breaker)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      org.owner.user.organization_id,
      settings.name,
      org.agent.id,
      sourceId,
      JSON.stringify(settings.retry_config),
      settings.max_concurrency,
      settings.schedule_config ? JSON.stringify(settings.schedule_config) : null,
      JSON.stringify(settings.circuit_breaker),
    ],
  );
  if (!campaign) throw new Error('campaign insert returned nothing');
  return { campaignId: campaign.id, sourceId, contactIds: rows.map((row) => String(row.id)) };
}

/** Starts `campaign-<id>` the way the start route does (the API writes nothing to the row). */
export async function startCampaignWorkflow(
  client: Client,
  taskQueue: string,
  org: CallingOrganization,
  campaignId: number,
) {
  return client.workflow.start('campaignWorkflow', {
    workflowId: campaignWorkflowId(campaignId),
    taskQueue,
    args: [{ campaignId } satisfies CampaignWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: CampaignIdAttribute, value: campaignId },
      { key: OrganizationIdAttribute, value: org.owner.user.organization_id },
      { key: AgentIdAttribute, value: org.agent.id },
      { key: CampaignStateAttribute, value: 'running' },
    ],
    memo: { campaignName: 'Test campaign' },
  });
}

export interface CampaignRow {
  state: string;
  total_rows: number;
  total_queued_count: number;
  executed_count: number;
  processed_rows: number;
  failed_rows: number;
  started_at: Date | null;
  completed_at: Date | null;
  max_concurrency: number;
}

export async function campaignRow(dataSource: DataSource, campaignId: number): Promise<CampaignRow> {
  const [row] = await dataSource.query<CampaignRow[]>(
    `SELECT state, total_rows, total_queued_count, executed_count, processed_rows, failed_rows, started_at,
            completed_at, max_concurrency
       FROM campaigns WHERE id = $1`,
    [campaignId],
  );
  if (!row) throw new Error(`campaign ${campaignId} does not exist`);
  return row;
}

export interface CampaignLogRow {
  level: string;
  event: string;
  message: string;
  details: Record<string, unknown>;
  created_at: Date;
}

export const campaignLogs = (dataSource: DataSource, campaignId: number): Promise<CampaignLogRow[]> =>
  dataSource.query<CampaignLogRow[]>(
    `SELECT level, event, message, details, created_at FROM campaign_logs WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );

/** Every attempt of a campaign with the simulator's record of its dial, by contact and attempt. */
export async function campaignAttempts(dataSource: DataSource, campaignId: number) {
  return dataSource.query<
    { contact_id: string; attempt_number: number; status: string; outcome: string | null; phone_number: string }[]
  >(
    `SELECT a.contact_id::text, a.attempt_number, a.status, a.outcome, c.phone_number
       FROM campaign_attempts a JOIN campaign_contacts c ON c.id = a.contact_id
      WHERE a.campaign_id = $1 ORDER BY a.contact_id, a.attempt_number`,
    [campaignId],
  );
}

/** Waits on a campaign's progress in the database: its calls take seconds, so poll gently. */
export const CAMPAIGN_WAIT: WaitForOptions = { timeoutMs: 60_000, intervalMs: 200 };

export interface CampaignTestBed {
  /** The app (for the simulator's status webhooks), listening on `baseUrl`. */
  baseUrl: string;
  /** A new organization with a default outbound simulator configuration (fields as given). */
  organization(simulator: Record<string, unknown>): Promise<CallingOrganization>;
  close(): Promise<void>;
}

/**
 * What a campaign test needs around its worker: the app listening on a real port for the
 * simulator's webhooks (`env`: settings over the test defaults).
 */
export async function campaignTestBed(
  services: TestServices,
  taskQueue: string,
  env: Record<string, string> = {},
): Promise<CampaignTestBed> {
  const { dataSource } = services.db;
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { app } = buildTestApp(
    { dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY, ...env },
  );
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  return {
    baseUrl,
    organization: (simulator) => callingOrganization(handle, simulator),
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** A worker on the test's task queue with every activity, calling back to `baseUrl`. */
export function campaignWorker(services: TestServices, taskQueue: string, baseUrl: string): Promise<Worker> {
  return callWorker(services, { taskQueue, baseUrl, identity: 'campaign-tests' });
}

/** What a test file of campaigns works with; `bed()` is open from the file's first test to its end. */
export interface CampaignTestFile {
  services: TestServices;
  taskQueue: string;
  bed: () => CampaignTestBed;
  /** A worker on the file's task queue with every activity. */
  createWorker: () => Promise<Worker>;
  /**
   * Runs `test` while a worker polls the file's task queue. Cases that run side by side share one
   * worker, stopped when the last of them ends.
   */
  withWorker: <T>(test: () => Promise<T>) => Promise<T>;
}

/** The file's services, its own task queue (named after `name`), and its campaign test bed. */
export function useCampaignTestFile(name: string): CampaignTestFile {
  const services = useTestServices();
  const taskQueue = uniqueTaskQueue(name);
  let opened: CampaignTestBed | undefined;
  beforeAll(async () => {
    opened = await campaignTestBed(services, taskQueue);
  });
  afterAll(() => opened?.close());
  const bed = (): CampaignTestBed => {
    if (!opened) throw new Error('the campaign test bed is used before beforeAll ran');
    return opened;
  };
  const createWorker = () => campaignWorker(services, taskQueue, bed().baseUrl);
  let users = 0;
  let shared: Promise<{ worker: Worker; running: Promise<void> }> | undefined;
  const withWorker = async <T>(test: () => Promise<T>): Promise<T> => {
    users += 1;
    shared ??= createWorker().then((worker) => ({ worker, running: worker.run() }));
    const mine = shared;
    try {
      const { running } = await mine;
      const stopped = running.then(() => Promise.reject(new Error('the worker stopped during the test')));
      return await Promise.race([test(), stopped]);
    } finally {
      users -= 1;
      if (users === 0) {
        shared = undefined;
        const { worker, running } = await mine;
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      }
    }
  };
  return { services, taskQueue, bed, createWorker, withWorker };
}
