import { MockActivityEnvironment } from '@temporalio/testing';
import { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import type { CampaignCallResult } from '../../workflows/definitions';
import { connectTestTemporal, decryptedPayload, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

// No worker polls this queue: the "campaigns" here only need to exist, run or have ended.
const taskQueue = uniqueTaskQueue('campaign-report');
let temporal: TestTemporal;

beforeAll(async () => {
  temporal = await connectTestTemporal();
});
afterAll(() => temporal.close());

const resultFor = (parentWorkflowId: string): CampaignCallResult => ({
  parentWorkflowId,
  campaignId: 7,
  contactId: '42',
  attempt: 1,
  runId: 99,
  outcome: 'completed',
});

const report = (result: CampaignCallResult) => {
  const activities = createCampaignReportActivities({ temporal: temporal.client });
  return new MockActivityEnvironment().run((input: CampaignCallResult) => activities.reportCampaignCall(input), result);
};

/** The signals a workflow received, by name and input. */
async function signalsOf(workflowId: string): Promise<{ name: string; input: unknown }[]> {
  const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (!signaled) return [];
    const [payload] = signaled.input?.payloads ?? [];
    const input: unknown = payload
      ? JSON.parse(Buffer.from(decryptedPayload(payload).data ?? []).toString('utf8'))
      : undefined;
    return [{ name: signaled.signalName ?? '', input }];
  });
}

describe('reportCampaignCall (the local activity a campaign call reports with)', () => {
  it('signals the campaign by workflow id with the call outcome', async () => {
    const workflowId = `${taskQueue}-running`;
    await temporal.client.workflow.start('campaignWorkflow', { taskQueue, workflowId, args: [] });
    await report(resultFor(workflowId));
    expect(await signalsOf(workflowId)).toEqual([{ name: 'campaignCallFinished', input: resultFor(workflowId) }]);
  });

  it('goes to the current run of the workflow id, as after a continue-as-new', async () => {
    const workflowId = `${taskQueue}-latest`;
    const first = await temporal.client.workflow.start('campaignWorkflow', { taskQueue, workflowId, args: [] });
    await first.terminate('replaced');
    const latest = await temporal.client.workflow.start('campaignWorkflow', { taskQueue, workflowId, args: [] });
    await report(resultFor(workflowId));
    const history = await temporal.client.workflow.getHandle(workflowId, latest.firstExecutionRunId).fetchHistory();
    expect(history.events?.some((event) => event.workflowExecutionSignaledEventAttributes)).toBe(true);
  });

  it('ends quietly when the campaign has ended or never existed', async () => {
    const workflowId = `${taskQueue}-ended`;
    const handle = await temporal.client.workflow.start('campaignWorkflow', { taskQueue, workflowId, args: [] });
    await handle.terminate('cancelled');
    await expect(report(resultFor(workflowId))).resolves.toBeUndefined();
    await expect(report(resultFor(`${taskQueue}-never-started`))).resolves.toBeUndefined();
  });
});

describe('askCampaignCallsToReport (before a campaign continues as new)', () => {
  const ask = (workflowIds: string[]) => {
    const activities = createCampaignReportActivities({ temporal: temporal.client });
    return new MockActivityEnvironment().run(
      (input: { workflowIds: string[] }) => activities.askCampaignCallsToReport(input),
      { workflowIds },
    );
  };

  it('asks the calls still running and names those that have ended', async () => {
    const running = `${taskQueue}-call-running`;
    const ended = `${taskQueue}-call-ended`;
    await temporal.client.workflow.start('callWorkflow', { taskQueue, workflowId: running, args: [] });
    const endedHandle = await temporal.client.workflow.start('callWorkflow', {
      taskQueue,
      workflowId: ended,
      args: [],
    });
    await endedHandle.terminate('done');
    await expect(ask([running, ended])).resolves.toEqual([ended]);
    expect(await signalsOf(running)).toEqual([{ name: 'campaignReportRequested', input: undefined }]);
  });
});
