import { ROUTE_RETRY_MS } from '../../workflows/campaign/tracker';
import { campaignProgressQuery } from '../../workflows/definitions';
import { CampaignStateAttribute } from '../../workflows/search-attributes';
import {
  campaignAttempts,
  campaignLogs,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { localActivityTypes } from '../helpers/histories';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('campaign-lifecycle');

// Cases side by side on a loaded machine each take longer than one at a time would.
jest.setTimeout(180_000);
let org: CallingOrganization;

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
});

// Every magic suffix of the simulator, and two numbers that answer.
const CONTACTS = [
  { phoneNumber: '+14155551001', expected: 'completed' },
  { phoneNumber: '+14155550486', expected: 'busy' },
  { phoneNumber: '+14155550408', expected: 'no-answer' },
  { phoneNumber: '+14155550600', expected: 'voicemail' },
  { phoneNumber: '+14155550503', expected: 'failed' },
  { phoneNumber: '+14155551002', expected: 'completed' },
];

// The two cases run side by side on the file's worker, each with its own organization and numbers.
describe('campaign lifecycle', () => {
  it.concurrent(
    'dials every contact, retries only enabled outcomes after the delay, and completes with exact counters',
    async () => {
      const settings = campaignSettings({
        max_concurrency: 3,
        // Busy and no-answer are retried once, 2 s later; voicemail is not retried.
        retry_config: {
          enabled: true,
          max_retries: 1,
          retry_delay_seconds: 2,
          retry_on_busy: true,
          retry_on_no_answer: true,
          retry_on_voicemail: false,
        },
      });
      const { campaignId, contactIds } = await insertCampaign(services.db.dataSource, org, CONTACTS, settings);
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      // Queries of a closed workflow replay it on a worker: ask while the worker runs.
      const progress = await withWorker(async () => {
        await handle.result();
        return handle.query(campaignProgressQuery);
      });

      const row = await campaignRow(services.db.dataSource, campaignId);
      // 6 first attempts + one retry each for busy and no-answer.
      expect(row).toMatchObject({
        state: 'completed',
        total_rows: 6,
        total_queued_count: 8,
        executed_count: 8,
        processed_rows: 6,
        failed_rows: 4,
      });
      expect(row.started_at).toBeInstanceOf(Date);
      expect(row.completed_at).toBeInstanceOf(Date);

      const attempts = await campaignAttempts(services.db.dataSource, campaignId);
      const byNumber = (phone: string) => attempts.filter((attempt) => attempt.phone_number === phone);
      for (const { phoneNumber, expected } of CONTACTS) {
        const tries = byNumber(phoneNumber);
        const retried = expected === 'busy' || expected === 'no-answer';
        expect({ phoneNumber, outcomes: tries.map((attempt) => attempt.outcome) }).toEqual({
          phoneNumber,
          outcomes: retried ? [expected, expected] : [expected],
        });
        expect(tries.every((attempt) => attempt.status === 'finished')).toBe(true);
      }

      // The simulator's own record: each attempt dialed once, a retry at least the delay after its first dial.
      const dials = await services.db.dataSource.query<
        { to_address: string; started_at: Date; idempotency_key: string }[]
      >(
        `SELECT to_address, started_at, idempotency_key FROM simulator_calls
        WHERE idempotency_key LIKE $1 ORDER BY started_at`,
        [`campaign-${campaignId}/%`],
      );
      expect(dials).toHaveLength(8);
      for (const phone of ['+14155550486', '+14155550408']) {
        const [first, second] = dials.filter((dial) => dial.to_address === phone);
        expect(second).toBeDefined();
        expect((second?.started_at.getTime() ?? 0) - (first?.started_at.getTime() ?? 0)).toBeGreaterThanOrEqual(2000);
      }

      const logs = await campaignLogs(services.db.dataSource, campaignId);
      expect(logs.map((log) => log.event)).toEqual(['campaign_started', 'campaign_completed']);

      expect(progress).toMatchObject({
        campaignId,
        state: 'completed',
        total_rows: 6,
        total_queued_count: 8,
        executed_count: 8,
        processed_rows: 6,
        failed_rows: 4,
        in_flight: 0,
        pending_retries: 0,
        outcomes: { completed: 2, busy: 1, 'no-answer': 1, voicemail: 1, failed: 1 },
        next_open_at: null,
      });
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(CampaignStateAttribute)).toBe('completed');
      expect(description.memo).toEqual({ campaignName: 'Test campaign' });

      // Each run is linked to its campaign, attempt and child workflow, with the contact's context.
      const runs = await services.db.dataSource.query<
        {
          campaign_id: number;
          temporal_workflow_id: string;
          initial_context: Record<string, unknown>;
          attempt_id: number;
        }[]
      >(
        `SELECT r.campaign_id, r.temporal_workflow_id, r.initial_context, a.id AS attempt_id
         FROM runs r JOIN campaign_attempts a ON a.id = r.campaign_attempt_id WHERE r.campaign_id = $1`,
        [campaignId],
      );
      expect(runs).toHaveLength(8);
      const first = runs.find(
        (run) => run.temporal_workflow_id === `campaign-${campaignId}/contact-${contactIds[0]}/attempt-1`,
      );
      expect(first?.initial_context).toMatchObject({
        first_name: 'Ada',
        called_number: '+14155551001',
        caller_number: '+14155550100',
        direction: 'outbound',
        provider: 'simulator',
      });

      // The answered call (over when its answer was known: the simulator talks for 0 s) ran its
      // conversation, wrote its outcome and reported to the campaign in one local activity of its
      // last workflow task: no signal from the workflow, and no workflow task after the call ended
      // just to learn the signal went out. Its post-call webhooks (none) came back with the outcome.
      const childEvents =
        (await services.temporal.client.workflow.getHandle(first?.temporal_workflow_id ?? '').fetchHistory()).events ??
        [];
      expect(localActivityTypes(childEvents)).toEqual(['checkDialRules', 'preCallFetch', 'placeCall', 'concludeCall']);
      expect(childEvents.filter((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
      expect(childEvents.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(2);
    },
  );

  it.concurrent('holds its contacts while it cannot dial at all, and fails after the third try', async () => {
    const broken = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
    await services.db.dataSource.query(
      `UPDATE telephony_configurations SET is_default_outbound = false WHERE organization_id = $1`,
      [broken.owner.user.organization_id],
    );
    const contacts = [{ phoneNumber: '+14155552001' }, { phoneNumber: '+14155552002' }];
    const { campaignId } = await insertCampaign(services.db.dataSource, broken, contacts);
    const began = Date.now();
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, broken, campaignId);
    await withWorker(() => handle.result());
    // Two waits of ROUTE_RETRY_MS between the three tries.
    expect(Date.now() - began).toBeGreaterThanOrEqual(2 * ROUTE_RETRY_MS);

    // No contact was spent: nothing dialed, nothing processed.
    expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
      state: 'failed',
      total_queued_count: 2,
      executed_count: 0,
      processed_rows: 0,
      failed_rows: 0,
    });
    expect(await campaignRow(services.db.dataSource, campaignId)).toHaveProperty('completed_at', expect.any(Date));
    const logs = await campaignLogs(services.db.dataSource, campaignId);
    expect(logs.map((log) => log.event)).toEqual([
      'campaign_started',
      'call_initiation_failed',
      'call_initiation_failed',
      'campaign_failed',
    ]);
    const error = 'Telephony provider not configured for this organization';
    expect(logs[1]).toMatchObject({ level: 'warning', details: { error, consecutive_failures: 1 } });
    expect(logs[3]).toMatchObject({
      level: 'error',
      message: `Campaign failed: ${error}`,
      details: { error, consecutive_failures: 3 },
    });
    // Never dialed, and closed with the campaign: nothing is left pending.
    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.map((attempt) => [attempt.status, attempt.outcome])).toEqual([
      ['cancelled', null],
      ['cancelled', null],
    ]);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(CampaignStateAttribute)).toBe('failed');
  });
});
