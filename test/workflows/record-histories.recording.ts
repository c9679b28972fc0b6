import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Client as TemporalClient } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createCallConclusionActivities } from '../../activities/call-conclusion.activities';
import type { createCallActivities } from '../../activities/call.activities';
import type { ConversationResult } from '../../agent-runtime/contract';
import { historyJson } from '../../platform/replay';
import type { createTextChatActivities } from '../../activities/text-chat.activities';
import { callWorkflow } from '../../workflows/call.workflow';
import { textChatWorkflow } from '../../workflows/text-chat.workflow';
import {
  endTextChatUpdate,
  openTextChatUpdate,
  rewindTextChatUpdate,
  sendTextChatMessageUpdate,
} from '../../workflows/text-chat/definitions';
import {
  callStatusSignal,
  campaignCallWorkflowId,
  conversationEndedSignal,
  conversationStartedSignal,
  configureCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CallStatusUpdate,
  type CallWorkflowInput,
} from '../../workflows/definitions';
import { customSearchAttributes } from '../../workflows/search-attributes';
import {
  campaignRow,
  campaignSettings,
  campaignTestBed,
  campaignWorker,
  insertCampaign,
  startCampaignWorkflow,
  CAMPAIGN_WAIT,
} from '../helpers/campaigns';
import { useTestServices, type TestServices } from '../helpers/services';
import { testEnv } from '../helpers/test-env';
import {
  connectTestTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

/**
 * Records the replay fixtures (test/fixtures/histories/*.json) from the current workflow code:
 * `npm run record-histories` (scripts/record-histories.ts) runs this file with
 * `RECORD_HISTORIES=<folder>`. It is no `.test.ts`: the suite never runs it. Campaigns run against the simulator,
 * PostgreSQL and the API as in the campaign tests; calls and a text chat alone run on fake activities (a replay
 * needs only the commands). The continued-as-new campaign runs on a second dev server that
 * suggests continuing as new after 150 events.
 */
const folder = process.env.RECORD_HISTORIES ?? '';
if (!folder) throw new Error('RECORD_HISTORIES names the folder to record into: run `npm run record-histories`.');

const save = async (name: string, handle: WorkflowHandle, runId?: string): Promise<void> => {
  const history = await handle.client.getHandle(handle.workflowId, runId).fetchHistory();
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, `${name}.json`), `${historyJson({ workflowId: name, history })}\n`);
};

const services = useTestServices();

describe('recording replay fixtures', () => {
  it('a campaign with retries, a pause, a settings change and a resume, and two of its calls', async () => {
    const taskQueue = uniqueTaskQueue('record-campaign');
    const bed = await campaignTestBed(services, taskQueue);
    try {
      const org = await bed.organization({ ring_seconds: 0, talk_seconds: 1 });
      const settings = campaignSettings({
        max_concurrency: 1,
        retry_config: {
          enabled: true,
          max_retries: 1,
          retry_delay_seconds: 1,
          retry_on_busy: true,
          retry_on_no_answer: true,
          retry_on_voicemail: false,
        },
      });
      const contacts = ['+14155551001', '+14155550486', '+14155550408', '+14155551002'].map((phoneNumber) => ({
        phoneNumber,
      }));
      const { campaignId, contactIds } = await insertCampaign(services.db.dataSource, org, contacts, settings);
      const worker = await campaignWorker(services, taskQueue, bed.baseUrl);
      await worker.runUntil(async () => {
        const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
        await waitFor(
          'the first outcome',
          async () => (await campaignRow(services.db.dataSource, campaignId)).processed_rows >= 1,
          CAMPAIGN_WAIT,
        );
        await handle.executeUpdate(pauseCampaignUpdate);
        await handle.executeUpdate(configureCampaignUpdate, { args: [{ max_concurrency: 2 }] });
        await handle.executeUpdate(resumeCampaignUpdate);
        await handle.result();
        await save('campaign-workflow', handle);
        const child = (index: number) =>
          services.temporal.client.workflow.getHandle(campaignCallWorkflowId(campaignId, contactIds[index] ?? '', 1));
        await save('campaign-call-answered', child(0));
        await save('campaign-call-busy', child(1));
      });
    } finally {
      await bed.close();
    }
  }, 180_000);

  it('a campaign run that asks its calls in flight to report and continues as new, and an asked call', async () => {
    const temporalEnv = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: testEnv('temporalCliPath') },
        searchAttributes: customSearchAttributes,
        extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=150'],
      },
    });
    const temporal: TestTemporal = {
      client: new TemporalClient({
        connection: temporalEnv.connection,
        namespace: 'default',
        dataConverter: testDataConverter,
      }),
      nativeConnection: temporalEnv.nativeConnection,
      close: () => temporalEnv.teardown(),
    };
    const cas: TestServices = { db: services.db, temporal, server: (env, client) => services.server(env, client) };
    const taskQueue = uniqueTaskQueue('record-continued');
    const bed = await campaignTestBed(cas, taskQueue);
    try {
      const org = await bed.organization({ ring_seconds: 1, talk_seconds: 2 });
      const contacts = Array.from({ length: 40 }, (_, index) => ({
        phoneNumber: `+1415555${String(1100 + index)}`,
      }));
      const settings = campaignSettings({ max_concurrency: 5 });
      const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts, settings);
      const worker = await campaignWorker(cas, taskQueue, bed.baseUrl);
      await worker.runUntil(async () => {
        const handle = await startCampaignWorkflow(temporal.client, taskQueue, org, campaignId);
        await handle.result();
        await save('campaign-continued-as-new', handle, handle.firstExecutionRunId);
        const asked = await firstAskedCall(temporal.client, handle, handle.firstExecutionRunId);
        await save('campaign-call-asked-to-report', temporal.client.workflow.getHandle(asked));
      });
    } finally {
      await bed.close();
      await temporal.close();
    }
  }, 300_000);

  describe('calls on fake activities', () => {
    let temporal: TestTemporal;
    beforeAll(async () => {
      temporal = await connectTestTemporal();
    });
    afterAll(() => temporal.close());

    const record = async (
      name: string,
      input: Partial<CallWorkflowInput>,
      signal: (h: WorkflowHandle) => Promise<void>,
    ) => {
      const taskQueue = uniqueTaskQueue('record-call');
      const worker = await Worker.create({
        connection: temporal.nativeConnection,
        taskQueue,
        workflowBundle: testWorkflowBundle(),
        dataConverter: testDataConverter,
        activities: fakeCallActivities(),
      });
      await worker.runUntil(async () => {
        const handle = await temporal.client.workflow.start(callWorkflow, {
          workflowId: `record-${name}-${randomUUID()}`,
          taskQueue,
          args: [
            { runId: 7, attempt: 1, maxDurationSeconds: 30, statusPollSeconds: 5, conversation: 'simulated', ...input },
          ],
        });
        await signal(handle);
        await handle.result();
        await save(name, handle);
      });
    };
    const status = (handle: WorkflowHandle, update: CallStatusUpdate) => handle.signal(callStatusSignal, update);

    it('an answered simulated call that talks, with a post-call webhook', () =>
      record('call-workflow', {}, async (handle) => {
        await status(handle, { status: 'answered', providerCallId: 'P1' });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await status(handle, { status: 'completed', providerCallId: 'P1', durationSeconds: 4 });
      }));

    it('a simulated call over before its answer was known', () =>
      record('simulated-call-concluded', {}, (handle) =>
        status(handle, { status: 'completed', providerCallId: 'P1', durationSeconds: 5 }),
      ));

    it('a busy call', () =>
      record('call-busy', {}, (handle) => status(handle, { status: 'busy', providerCallId: 'P1' })));

    it('a live call whose conversation ran on its media stream', () =>
      record('live-call', { conversation: 'live' }, async (handle) => {
        await status(handle, { status: 'answered', providerCallId: 'P1' });
        await handle.signal(conversationStartedSignal);
        await handle.signal(conversationEndedSignal, { ...conversation, durationSeconds: 3 });
        await status(handle, { status: 'completed', providerCallId: 'P1', durationSeconds: 3 });
      }));
  });

  describe('a text chat session', () => {
    let temporal: TestTemporal;
    beforeAll(async () => {
      temporal = await connectTestTemporal();
    });
    afterAll(() => temporal.close());

    it('opened, answered, rewound, answered again and ended', async () => {
      const taskQueue = uniqueTaskQueue('record-text-chat');
      const worker = await Worker.create({
        connection: temporal.nativeConnection,
        taskQueue,
        workflowBundle: testWorkflowBundle(),
        dataConverter: testDataConverter,
        activities: fakeTextChatActivities(),
      });
      await worker.runUntil(async () => {
        const handle = await temporal.client.workflow.start(textChatWorkflow, {
          workflowId: `record-text-chat-${randomUUID()}`,
          taskQueue,
          args: [{ runId: 7, inactivityTimeoutSeconds: 600 }],
        });
        await handle.executeUpdate(openTextChatUpdate);
        await handle.executeUpdate(sendTextChatMessageUpdate, { args: [{ text: 'Yes.', expectedRevision: 0 }] });
        await handle.executeUpdate(rewindTextChatUpdate, { args: [{ toTurn: 0, expectedRevision: 1 }] });
        await handle.executeUpdate(sendTextChatMessageUpdate, { args: [{ text: 'Who is this?' }] });
        await handle.executeUpdate(endTextChatUpdate, { args: [{}] });
        await handle.result();
        await save('text-chat-workflow', handle);
      });
    });
  });
});

/** Text chat activities that answer at once: each message moves the conversation one line on. */
function fakeTextChatActivities(): ReturnType<typeof createTextChatActivities> {
  const line = (role: 'user' | 'assistant', text: string) => ({ at: '2026-01-01T00:00:00.000Z', role, text });
  return {
    textChatStep: ({ checkpoint, next }) => {
      const before = checkpoint ?? {
        ...conversation,
        transcript: [],
        nodeId: 'start',
        calleeRepliesInNode: 0,
        turns: 0,
        toolCalls: [],
      };
      if (next && 'ended' in next) {
        return Promise.resolve({
          reply: [],
          ended: { ...conversation, transcript: before.transcript, endedBy: next.ended },
        });
      }
      const said = [...(next ? [line('user', next.text)] : []), line('assistant', 'Hello.')];
      const paused = { ...before, transcript: [...before.transcript, ...said], turns: before.turns + 1 };
      return Promise.resolve({ reply: said.slice(-1), paused });
    },
    concludeTextChat: () => Promise.resolve({ disposition: 'user_hangup', postCallWebhooks: [] }),
  };
}

const conversation: ConversationResult = {
  transcript: [{ at: '2026-01-01T00:00:00.000Z', role: 'assistant', text: 'Hello.' }],
  gatheredContext: {},
  disposition: 'interested',
  endedBy: 'end_node',
  nodePath: ['start', 'end'],
  usage: { model: 'offline', promptTokens: 3, completionTokens: 2, totalTokens: 5 },
};

/** Call activities that answer at once, with the real `concludeCall` over them. */
function fakeCallActivities() {
  const steps: ReturnType<typeof createCallActivities> = {
    placeCall: () => Promise.resolve({ providerCallId: 'P1' }),
    getCallStatus: () => Promise.resolve(null),
    hangupCall: () => Promise.resolve(),
    voicemailMessage: () => Promise.resolve(null),
    requestLiveVoicemail: () => Promise.resolve(false),
    startTransfer: () => Promise.resolve({ refused: 'no transfers in these recordings' }),
    cancelTransfer: () => Promise.resolve(),
    releaseTransfer: () => Promise.resolve(),
    getTransferStatus: () => Promise.resolve(null),
    runConversation: () => Promise.resolve(conversation),
    finalizeRun: () => Promise.resolve({ postCallWebhooks: [{ nodeId: 'hook', name: 'CRM' }] }),
  };
  const reportCampaignCall = () => Promise.resolve();
  return {
    ...steps,
    reportCampaignCall,
    ...createCallConclusionActivities({ ...steps, reportCampaignCall }),
    checkDialRules: () => Promise.resolve({ dial: true as const }),
    preCallFetch: () => Promise.resolve({ fetched: false as const }),
    deliverPostCallWebhook: () => Promise.resolve({ httpStatus: 200 }),
    recordWebhookFailure: () => Promise.resolve(),
  };
}

/** A call of the campaign's first run that was asked to report (it got `campaignReportRequested`). */
async function firstAskedCall(client: Client, campaign: WorkflowHandle, runId: string): Promise<string> {
  const history = await client.workflow.getHandle(campaign.workflowId, runId).fetchHistory();
  const started = (history.events ?? []).flatMap((event) => {
    const id = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    return id ? [id] : [];
  });
  for (const workflowId of started) {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const asked = events.some(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'campaignReportRequested',
    );
    if (asked) return workflowId;
  }
  throw new Error(`no call of ${campaign.workflowId}'s first run was asked to report`);
}
