import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  campaignCallWorkflowId,
  campaignProgressQuery,
  cancelCampaignUpdate,
  configureCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
} from '../../workflows/definitions';
import { CampaignStateAttribute } from '../../workflows/search-attributes';
import {
  campaignAttempts,
  campaignLogs,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  CAMPAIGN_WAIT,
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('campaign-controls');

// Cases side by side on a loaded machine each take longer than one at a time would.
jest.setTimeout(180_000);
/** Calls ring 1 s and talk 1 s: long enough to overlap. */
let org: CallingOrganization;

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 1, talk_seconds: 1 });
});

const numbers = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => ({ phoneNumber: `+1${prefix}${String(index).padStart(4, '0')}` }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The most calls the simulator had up at once among the given numbers (its own record of each call). */
async function peakSimultaneousCalls(prefix: string, since = new Date(0)): Promise<number> {
  const [row] = await services.db.dataSource.query<{ peak: number | null }[]>(
    `WITH calls AS (
       SELECT started_at AS starts,
              least(started_at + make_interval(secs => ring_seconds + talk_seconds), coalesce(hung_up_at, 'infinity')) AS ends
         FROM simulator_calls WHERE to_address LIKE $1 AND started_at >= $2)
     SELECT max((SELECT count(*) FROM calls b WHERE b.starts <= a.starts AND a.starts < b.ends))::int AS peak FROM calls a`,
    [`+1${prefix}%`, since],
  );
  return row?.peak ?? 0;
}

const dialsTo = async (prefix: string): Promise<number> => {
  const [row] = await services.db.dataSource.query<{ count: number }[]>(
    `SELECT count(*)::int AS count FROM simulator_calls WHERE to_address LIKE $1`,
    [`+1${prefix}%`],
  );
  return row?.count ?? 0;
};

/** The rejection an Update gets from the workflow's validator. */
async function rejection(update: Promise<unknown>): Promise<{ type: string | undefined; message: string }> {
  const error = await update.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return { type: (cause as ApplicationFailure).type ?? undefined, message: (cause as ApplicationFailure).message };
}

const executed = async (campaignId: number) => (await campaignRow(services.db.dataSource, campaignId)).executed_count;

// The cases run side by side on the file's worker, each on numbers no other case dials (its own
// exchange), so the simulator's record of one case's calls holds none of another's.
describe('campaign controls', () => {
  it.concurrent('never has more calls up than max_concurrency', async () => {
    const prefix = '415601';
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      numbers(15, prefix),
      campaignSettings({ max_concurrency: 3 }),
    );
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    await withWorker(() => handle.result());
    expect(await dialsTo(prefix)).toBe(15);
    const peak = await peakSimultaneousCalls(prefix);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThanOrEqual(2);
    expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
      state: 'completed',
      processed_rows: 15,
      failed_rows: 0,
    });
  });

  it.concurrent(
    'pauses (in-flight calls finish, nothing new is dialed), takes a configuration while paused, and resumes',
    async () => {
      const prefix = '415602';
      const { campaignId } = await insertCampaign(
        services.db.dataSource,
        org,
        numbers(12, prefix),
        campaignSettings({ max_concurrency: 2 }),
      );
      const handle: WorkflowHandle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      await withWorker(async () => {
        await waitFor('the first dials', async () => (await executed(campaignId)) >= 2, CAMPAIGN_WAIT);
        // Configuration changes are refused while running, naming the state.
        expect(
          await rejection(handle.executeUpdate(configureCampaignUpdate, { args: [{ max_concurrency: 4 }] })),
        ).toEqual({
          type: 'CampaignStateConflict',
          message: 'Campaign is running',
        });

        const executedAtPause = await executed(campaignId);
        expect(await handle.executeUpdate(pauseCampaignUpdate)).toBe('paused');
        // The Update answers once the row says so.
        expect((await campaignRow(services.db.dataSource, campaignId)).state).toBe('paused');
        expect(await rejection(handle.executeUpdate(pauseCampaignUpdate))).toEqual({
          type: 'CampaignStateConflict',
          message: 'Campaign is paused',
        });
        await waitFor(
          'the calls in flight to finish',
          async () => (await handle.query(campaignProgressQuery)).in_flight === 0,
          CAMPAIGN_WAIT,
        );
        const dialedWhilePausing = await dialsTo(prefix);
        // At most one in-flight window dialed after the pause.
        expect(dialedWhilePausing).toBeLessThanOrEqual(executedAtPause + 2);
        await sleep(3000);
        expect(await dialsTo(prefix)).toBe(dialedWhilePausing);

        // Sent straight to the workflow (as the Temporal CLI can), an invalid change is refused by the
        // same rules as the REST schema, before it enters the history.
        for (const [change, field] of [
          [{ max_concurrency: 500 }, 'max_concurrency'],
          [{ retry_config: 'nonsense' }, 'retry_config'],
          [{ retry_config: { ...campaignSettings().retry_config, max_retries: -1 } }, 'retry_config.max_retries'],
          [{ schedule_config: { enabled: true, timezone: 'Mars/Olympus', slots: [] } }, 'schedule_config'],
          [{ unknown_setting: 1 }, 'change'],
        ] as const) {
          const refused = await rejection(handle.executeUpdate(configureCampaignUpdate, { args: [change as never] }));
          expect(refused.type).toBe('InvalidCampaignSettings');
          expect(refused.message).toContain(field);
        }
        const { events } = await handle.fetchHistory();
        expect(events?.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);

        expect(await handle.executeUpdate(configureCampaignUpdate, { args: [{ max_concurrency: 4 }] })).toBe('paused');
        expect((await campaignRow(services.db.dataSource, campaignId)).max_concurrency).toBe(4);

        const resumedAt = new Date();
        expect(await handle.executeUpdate(resumeCampaignUpdate)).toBe('running');
        await handle.result();
        expect(await peakSimultaneousCalls(prefix, resumedAt)).toBeLessThanOrEqual(4);
      });
      expect(await dialsTo(prefix)).toBe(12);
      expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
        state: 'completed',
        executed_count: 12,
        processed_rows: 12,
      });
      const logs = await campaignLogs(services.db.dataSource, campaignId);
      expect(logs.map((log) => log.event)).toEqual([
        'campaign_started',
        'campaign_paused',
        'config_updated',
        'campaign_resumed',
        'campaign_completed',
      ]);
      expect(logs[2]?.details).toEqual({ max_concurrency: 4 });
    },
  );

  it.concurrent(
    'cancels: the row is cancelled at once, calls in flight finish and are recorded, nothing more is dialed',
    async () => {
      const prefix = '415603';
      const { campaignId } = await insertCampaign(
        services.db.dataSource,
        org,
        numbers(20, prefix),
        campaignSettings({ max_concurrency: 2 }),
      );
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      await withWorker(async () => {
        await waitFor('the first dials', async () => (await executed(campaignId)) >= 2, CAMPAIGN_WAIT);
        expect(await handle.executeUpdate(cancelCampaignUpdate)).toBe('cancelled');
        expect((await campaignRow(services.db.dataSource, campaignId)).state).toBe('cancelled');
        // The workflow ends once the calls in flight have reported.
        await handle.result();
        const description = await handle.describe();
        expect(description.typedSearchAttributes.get(CampaignStateAttribute)).toBe('cancelled');
        const dialed = await dialsTo(prefix);
        // The calls in flight finish on their own: every dialed run completes.
        await waitFor(
          'the abandoned calls to finish',
          async () => {
            const [row] = await services.db.dataSource.query<{ open: number }[]>(
              `SELECT count(*)::int AS open FROM runs WHERE campaign_id = $1 AND NOT is_completed`,
              [campaignId],
            );
            return row?.open === 0;
          },
          CAMPAIGN_WAIT,
        );
        await sleep(1500);
        expect(await dialsTo(prefix)).toBe(dialed);
        expect(dialed).toBeLessThan(20);
      });
      const row = await campaignRow(services.db.dataSource, campaignId);
      expect(row.state).toBe('cancelled');
      expect(row.completed_at).toBeInstanceOf(Date);
      const logs = await campaignLogs(services.db.dataSource, campaignId);
      expect(logs.map((log) => log.event)).toEqual(['campaign_started', 'campaign_cancelled']);
      // No attempt is left dialing: each dialed one has its outcome, counted in the row.
      const attempts = await campaignAttempts(services.db.dataSource, campaignId);
      expect(attempts.filter((attempt) => attempt.status !== 'finished')).toEqual([]);
      expect(attempts.every((attempt) => attempt.outcome === 'completed')).toBe(true);
      expect(row.executed_count).toBe(attempts.length);
      expect(row.processed_rows).toBe(attempts.length);
    },
  );

  it.concurrent(
    'cancels with retries pending: nothing stays pending, and every counter agrees with the attempts',
    async () => {
      // Every number is busy (the simulator's 0486 ending): each contact gets a retry, due in an hour.
      const { campaignId } = await insertCampaign(
        services.db.dataSource,
        org,
        Array.from({ length: 8 }, (_, index) => ({ phoneNumber: `+1415${610 + index}0486` })),
        campaignSettings({
          max_concurrency: 2,
          retry_config: { ...campaignSettings().retry_config, retry_delay_seconds: 3600 },
        }),
      );
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      const finished = async () =>
        (await campaignAttempts(services.db.dataSource, campaignId)).filter((a) => a.status === 'finished').length;
      await withWorker(async () => {
        await waitFor('four busy attempts', async () => (await finished()) >= 4, CAMPAIGN_WAIT);
        expect(await handle.executeUpdate(cancelCampaignUpdate)).toBe('cancelled');
        await handle.result();

        const attempts = await campaignAttempts(services.db.dataSource, campaignId);
        const done = attempts.filter((attempt) => attempt.status === 'finished');
        const contacts = new Set(done.map((attempt) => attempt.contact_id)).size;
        expect(attempts.filter((attempt) => attempt.status === 'queued' || attempt.status === 'dialing')).toEqual([]);
        expect(attempts.filter((attempt) => attempt.status === 'cancelled').length).toBeGreaterThan(0);
        expect(done.every((attempt) => attempt.outcome === 'busy')).toBe(true);

        const row = await campaignRow(services.db.dataSource, campaignId);
        expect(row).toMatchObject({ state: 'cancelled', processed_rows: contacts, failed_rows: contacts });
        expect(row.executed_count).toBe(done.length);

        // The closed workflow's own figures and the API's agree with the attempts.
        const query = await handle.query(campaignProgressQuery);
        expect(query).toMatchObject({ state: 'cancelled', in_flight: 0, pending_retries: 0, processed_rows: contacts });
        expect(query.outcomes).toEqual({ busy: contacts });
        const res = await fetch(`${bed().baseUrl}/api/v1/campaign/${campaignId}/progress`, {
          headers: { Authorization: `Bearer ${org.owner.token}` },
        });
        expect(await res.json()).toMatchObject({
          state: 'cancelled',
          processed_rows: contacts,
          failed_rows: contacts,
          in_flight: 0,
          pending_retries: 0,
          outcomes: { busy: contacts },
        });
      });
    },
  );

  it.concurrent('counts a call whose workflow was terminated as an error, and completes', async () => {
    const prefix = '415607';
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      numbers(3, prefix),
      campaignSettings({ max_concurrency: 1, retry_config: { ...campaignSettings().retry_config, enabled: false } }),
    );
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    await withWorker(async () => {
      // The first call is up: an operator terminates its workflow in the middle of the call.
      const [first] = await waitFor(
        'the first dial',
        async () => {
          const attempts = await campaignAttempts(services.db.dataSource, campaignId);
          return attempts.length > 0 ? attempts : undefined;
        },
        CAMPAIGN_WAIT,
      );
      if (!first) throw new Error('no attempt');
      const child = services.temporal.client.workflow.getHandle(
        campaignCallWorkflowId(campaignId, first.contact_id, first.attempt_number),
      );
      // The attempt's row is written just before its workflow starts.
      await waitFor('the first call workflow', () =>
        child.describe().then(
          () => true,
          () => false,
        ),
      );
      await child.terminate('operator');
      await handle.result();
    });
    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.map((attempt) => [attempt.status, attempt.outcome])).toEqual([
      ['finished', 'error'],
      ['finished', 'completed'],
      ['finished', 'completed'],
    ]);
    const row = await campaignRow(services.db.dataSource, campaignId);
    expect(row.state).toBe('completed');
    expect([row.processed_rows, row.failed_rows]).toEqual([3, 1]);
  });

  it.concurrent(
    'trips the circuit breaker on a run of failed calls, with the figures, and resume resets its window',
    async () => {
      const failing = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
      const contacts = Array.from({ length: 12 }, (_, index) => ({
        phoneNumber: `+1415${620 + index}0503`,
      }));
      const { campaignId } = await insertCampaign(
        services.db.dataSource,
        failing,
        contacts,
        campaignSettings({
          max_concurrency: 1,
          circuit_breaker: { enabled: true, failure_threshold: 0.5, window_seconds: 60, min_calls_in_window: 5 },
        }),
      );
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, failing, campaignId);
      const paused = () =>
        waitFor(
          'the breaker to pause the campaign',
          async () => (await campaignRow(services.db.dataSource, campaignId)).state === 'paused',
          CAMPAIGN_WAIT,
        );
      await withWorker(async () => {
        await paused();
        expect(await executed(campaignId)).toBe(5);
        expect((await handle.describe()).typedSearchAttributes.get(CampaignStateAttribute)).toBe('paused');
        expect(await handle.executeUpdate(resumeCampaignUpdate)).toBe('running');
        // A fresh window: it takes five more failures, not one, to trip again.
        await paused();
        expect(await executed(campaignId)).toBe(10);
        // The last two fail too, below min_calls_in_window: the campaign completes.
        expect(await handle.executeUpdate(resumeCampaignUpdate)).toBe('running');
        await handle.result();
      });
      const logs = await campaignLogs(services.db.dataSource, campaignId);
      expect(logs.map((log) => log.event)).toEqual([
        'campaign_started',
        'circuit_breaker_tripped',
        'campaign_resumed',
        'circuit_breaker_tripped',
        'campaign_resumed',
        'campaign_completed',
      ]);
      const figures = { failure_rate: 1, failure_count: 5, call_count: 5, threshold: 0.5, window_seconds: 60 };
      expect(logs[1]).toMatchObject({
        level: 'warning',
        details: figures,
        message: 'Paused: failure rate 100.00% (5/5) exceeded threshold 50.00% in 60s window',
      });
      expect(logs[3]?.details).toEqual(figures);
      expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
        state: 'completed',
        executed_count: 12,
        processed_rows: 12,
        failed_rows: 12,
      });
    },
  );
});
