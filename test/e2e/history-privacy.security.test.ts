import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import request from 'supertest';
import { callWorkflowId, campaignWorkflowId } from '../../workflows/definitions';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { decryptedPayload, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

/**
 * What Temporal stores of a call and a campaign, read back raw (no codec), as anyone reaching
 * Temporal's port, UI, database or backups would: no phone number, contact name, context or
 * transcript text, in payloads (encrypted), search attributes, memos (encrypted) or workflow ids.
 */
const services = useTestServices();

let http: Server;
let app: ReturnType<typeof buildTestApp>['app'];
let baseUrl: string;
let taskQueue: string;
let org: CallingOrganization;

const CALLED = '+14155557321';
const CONTACT = '+14155557322';

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('history-privacy');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(handle, { ring_seconds: 0, talk_seconds: 1 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const api = () => ({
  get: (path: string) => request(app.callback()).get(`/api/v1${path}`).set('X-API-Key', org.apiKey),
  post: (path: string, body?: object) =>
    request(app.callback()).post(`/api/v1${path}`).set('X-API-Key', org.apiKey).send(body),
});

/** Every event of a workflow's latest run, as the server sends it: nothing decoded. */
async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await services.temporal.client.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** A history and the workflow's description (search attributes, memo, ids) as the bytes Temporal keeps and serves. */
async function storedBytes(
  workflowId: string,
): Promise<{ bytes: Buffer; events: temporal.api.history.v1.IHistoryEvent[] }> {
  const events = await rawHistory(workflowId);
  const description = await services.temporal.client.workflowService.describeWorkflowExecution({
    namespace: 'default',
    execution: { workflowId },
  });
  const bytes = Buffer.concat([
    temporal.api.history.v1.History.encode({ events }).finish(),
    temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse.encode(description).finish(),
  ]);
  return { bytes, events };
}

/** Every payload in a value (a history), at any depth, with where it is. */
function payloadsIn(value: unknown, path = ''): { path: string; payload: Payload }[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return [];
  const record = value as Record<string, unknown>;
  if (record.metadata && typeof record.metadata === 'object' && 'data' in record) {
    return [{ path, payload: record }];
  }
  return Object.entries(record).flatMap(([key, child]) => payloadsIn(child, `${path}.${key}`));
}

/** The same payloads decrypted with the service's key, as an operator's codec server would show them. */
const decryptedText = (events: temporal.api.history.v1.IHistoryEvent[]): string =>
  payloadsIn(events)
    .map(({ payload }) => Buffer.from(decryptedPayload(payload).data ?? []).toString('utf8'))
    .join('\n');

/**
 * Where a history holds payloads in the clear: only search attributes (which Temporal indexes), the
 * SDK's own local-activity marker records (activity type, attempt, time) and its patch markers
 * (the patch's name, a constant of the workflow code) may.
 */
const clearPayloads = (events: temporal.api.history.v1.IHistoryEvent[]): string[] =>
  payloadsIn(events)
    .filter(({ payload }) => Buffer.from(payload.metadata?.encoding ?? []).toString('utf8') !== 'binary/encrypted')
    .map(({ path }) => path.replace(/^\.\d+/, ''))
    .filter(
      (path) =>
        !/\.searchAttributes\.indexedFields\.|^\.markerRecordedEventAttributes\.details\.(data|patch-data)\.payloads\./.test(
          path,
        ),
    );

/** A phone number as it might be stored: as given, without its `+`, or its national digits. */
const numberForms = (number: string) => [number, number.slice(1), number.slice(2)];

async function transcriptLines(runId: number): Promise<string[]> {
  const res = await api().get(`/workflow/${org.agent.id}/runs/${runId}/transcript`);
  expect(res.status).toBe(200);
  return res.text
    .split('\n')
    .map((line) => line.replace(/^\[[^\]]+\] \w+: /, '').trim())
    .filter((line) => line.length >= 12);
}

function expectNothingReadable(bytes: Buffer, secrets: string[]): void {
  const stored = bytes.toString('latin1');
  for (const secret of secrets) expect({ secret, found: stored.includes(secret) }).toEqual({ secret, found: false });
}

describe('what Temporal stores', () => {
  it('of a call: no number, name, context or transcript in the clear', async () => {
    const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'history-privacy' });
    const runId = await worker.runUntil(async () => {
      const res = await request(app.callback())
        .post(`/api/v1/public/agent/${org.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: CALLED, initial_context: { first_name: 'Zebulon', account_note: 'Wyvernhollow' } });
      expect(res.status).toBe(200);
      const id = res.body.workflow_run_id as number;
      await services.temporal.client.workflow.getHandle(callWorkflowId(id)).result();
      return id;
    });
    const transcript = await transcriptLines(runId);
    expect(transcript.join('\n')).toContain('Zebulon');

    const { bytes, events } = await storedBytes(callWorkflowId(runId));
    expectNothingReadable(bytes, [...numberForms(CALLED), 'Zebulon', 'Wyvernhollow', ...transcript]);
    expect(clearPayloads(events)).toEqual([]);
    // The check looks where the data is: decrypted, the same history holds the call's words.
    expect(decryptedText(events)).toContain('Zebulon');
  }, 120_000);

  it('of a campaign and its calls: no number, name, context or transcript in the clear', async () => {
    const csv = `phone_number,first_name,account_note\n${CONTACT},Quillonia,Brackenfirth\n`;
    const upload = await request(app.callback())
      .post('/api/v1/campaign/sources?file_name=contacts.csv')
      .set('X-API-Key', org.apiKey)
      .set('Content-Type', 'text/csv')
      .send(csv);
    expect(upload.status).toBe(201);
    const created = await api().post('/campaign/create', {
      name: 'Privacy campaign',
      workflow_id: org.agent.id,
      source_type: 'csv',
      source_id: upload.body.source_id as string,
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.id as number;
    const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'history-privacy' });
    await worker.runUntil(async () => {
      expect((await api().post(`/campaign/${campaignId}/start`)).status).toBe(200);
      await services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId)).result();
    });
    const [attempt] = await services.db.dataSource.query<{ workflow_id: string; run_id: number }[]>(
      `SELECT temporal_workflow_id AS workflow_id, run_id FROM campaign_attempts WHERE campaign_id = $1`,
      [campaignId],
    );
    if (!attempt) throw new Error('the campaign made no attempt');
    const transcript = await waitFor('the call transcript', async () => {
      const lines = await transcriptLines(attempt.run_id);
      return lines.length > 0 && lines;
    });

    const secrets = [...numberForms(CONTACT), 'Quillonia', 'Brackenfirth', ...transcript];
    const campaign = await storedBytes(campaignWorkflowId(campaignId));
    const call = await storedBytes(attempt.workflow_id);
    expectNothingReadable(Buffer.concat([campaign.bytes, call.bytes]), secrets);
    expect([...clearPayloads(campaign.events), ...clearPayloads(call.events)]).toEqual([]);
    expect(decryptedText(call.events)).toContain('Quillonia');
  }, 180_000);
});
