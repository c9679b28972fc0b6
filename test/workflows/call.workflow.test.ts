import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal as proto } from '@temporalio/proto';
import { createCallConclusionActivities } from '../../activities/call-conclusion.activities';
import { CallSetupError, ProviderRefusedError } from '../../domain/calls/call-errors';
import type { createCallActivities, FinalizeRunInput } from '../../activities/call.activities';
import type { ConversationResult } from '../../agent-runtime/contract';
import { callWorkflow } from '../../workflows/call.workflow';
import {
  callStatusSignal,
  campaignReportRequestedSignal,
  conversationEndedSignal,
  conversationStartedSignal,
  liveResumeQuery,
  type CallStatusUpdate,
  type CallWorkflowInput,
  type CampaignCallLink,
  type CampaignCallResult,
} from '../../workflows/definitions';
import { localActivityTypes, userMetadataSummaries } from '../helpers/histories';
import { waitFor } from '../helpers/wait-for';
import {
  connectTestTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';

type CallActivities = ReturnType<typeof createCallActivities>;

// Cases side by side on a loaded machine each take longer than one at a time would.
jest.setTimeout(180_000);
const { EventType } = proto.api.enums.v1;

let temporal: TestTemporal;
beforeAll(async () => {
  temporal = await connectTestTemporal();
});
afterAll(() => temporal.close());

const conversation: ConversationResult = {
  transcript: [{ at: '2026-01-01T00:00:00.000Z', role: 'assistant', text: 'Hello.' }],
  gatheredContext: {},
  disposition: 'interested',
  endedBy: 'end_node',
  nodePath: ['start', 'end'],
  usage: { model: 'offline', promptTokens: 3, completionTokens: 2, totalTokens: 5 },
};

/** The agents here fetch nothing before their calls (test/e2e/pre-call-fetch.test.ts is about that step). */
const noPreCallFetch = () => Promise.resolve({ fetched: false as const });

/** Fake activities (the engine included): each test replaces the ones it is about. */
function fakeActivities(overrides: Partial<CallActivities> = {}) {
  const finalizeRun = jest.fn((_input: FinalizeRunInput) => Promise.resolve({ postCallWebhooks: [] }));
  const activities: CallActivities = {
    placeCall: jest.fn(() => Promise.resolve({ providerCallId: 'P1' })),
    getCallStatus: jest.fn(() => Promise.resolve(null as CallStatusUpdate | null)),
    hangupCall: jest.fn(() => Promise.resolve()),
    voicemailMessage: jest.fn(() => Promise.resolve(null)),
    requestLiveVoicemail: jest.fn(() => Promise.resolve(false)),
    startTransfer: jest.fn(() => Promise.resolve({ refused: 'no transfers in this test' })),
    cancelTransfer: jest.fn(() => Promise.resolve()),
    releaseTransfer: jest.fn(() => Promise.resolve()),
    getTransferStatus: jest.fn(() => Promise.resolve(null)),
    runConversation: jest.fn(() => Promise.resolve(conversation)),
    finalizeRun,
    ...overrides,
  };
  // The same functions, typed as mocks for assertions.
  const mocks = activities as unknown as Record<keyof CallActivities, jest.Mock>;
  return { activities, finalizeRun, mocks };
}

/**
 * The workflow asked for this step once. Local activities run at least once: when signals arrive
 * while a workflow task completes, Temporal rejects the completion and the replay runs the step
 * again with the same input (each step is idempotent, dialing by its attempt key). So: called, and
 * every call the same.
 */
function expectCalledAsOnce(mock: jest.Mock): void {
  expect(mock).toHaveBeenCalled();
  for (const call of mock.mock.calls) expect(call).toEqual(mock.mock.calls[0]);
}

/** The outcome was written once (as `expectCalledAsOnce`), with this input. */
function expectWrittenOnce(finalizeRun: jest.Mock, written: FinalizeRunInput): void {
  expectCalledAsOnce(finalizeRun);
  expect(finalizeRun.mock.calls[0]?.[0]).toEqual(written);
}

/** The fakes, with the real `concludeCall` over them, and the campaign reports it (or the workflow) sent. */
function concludingActivities(overrides: Partial<CallActivities> = {}) {
  const fakes = fakeActivities(overrides);
  const reports: CampaignCallResult[] = [];
  const reportCampaignCall = (result: CampaignCallResult): Promise<void> => {
    reports.push(result);
    return Promise.resolve();
  };
  const activities = {
    ...fakes.activities,
    reportCampaignCall,
    ...createCallConclusionActivities({ ...fakes.activities, reportCampaignCall }),
  };
  return { ...fakes, activities, reports };
}

/** A provider whose call P1 stays answered until it is hung up, then reports `final`. */
function answeredUntilHungUp(final: CallStatusUpdate) {
  let hungUp = false;
  return {
    hangupCall: jest.fn(() => {
      hungUp = true;
      return Promise.resolve();
    }),
    getCallStatus: jest.fn(() =>
      Promise.resolve<CallStatusUpdate>(hungUp ? final : { status: 'answered', providerCallId: 'P1' }),
    ),
  };
}

/** Runs one call workflow on its own worker; `signals` are sent right after it starts. */
async function runCall(
  activities: CallActivities,
  signals: CallStatusUpdate[] = [],
  input: Partial<CallWorkflowInput> = {},
) {
  return (await runCallWithHistory(activities, signals, input)).outcome;
}

/** As `runCall`, with the call's history and the local activities it recorded; `before` runs before the signals. */
async function runCallWithHistory(
  activities: CallActivities & Partial<ReturnType<typeof createCallConclusionActivities>>,
  signals: CallStatusUpdate[] = [],
  input: Partial<CallWorkflowInput> = {},
  options: { before?: (handle: WorkflowHandle) => Promise<void>; workflowTaskTimeout?: string } = {},
) {
  const taskQueue = uniqueTaskQueue('call-workflow');
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    // The dial rules allow every dial here; test/workflows/dial-rules.test.ts refuses some. No agent fetches before its call.
    activities: { checkDialRules: () => Promise.resolve({ dial: true }), preCallFetch: noPreCallFetch, ...activities },
  });
  return worker.runUntil(async () => {
    const handle = await temporal.client.workflow.start(callWorkflow, {
      workflowId: `call-test-${randomUUID()}`,
      taskQueue,
      args: [
        {
          runId: 7,
          attempt: 1,
          maxDurationSeconds: 30,
          ringTimeoutSeconds: 30,
          statusPollSeconds: 1,
          conversation: 'simulated',
          ...input,
        },
      ],
      ...(options.workflowTaskTimeout ? { workflowTaskTimeout: options.workflowTaskTimeout } : {}),
    });
    await options.before?.(handle);
    for (const update of signals) await handle.signal(callStatusSignal, update);
    const outcome = await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    return { outcome, localActivities: localActivityTypes(events), events };
  });
}

// Each case runs its own worker on its own task queue with its own fakes: the cases run side by side.
describe('callWorkflow', () => {
  it.concurrent('takes completed-before-answered as a connected call, with its conversation', async () => {
    const { activities, finalizeRun } = concludingActivities();
    const outcome = await runCall(activities, [
      { status: 'completed', providerCallId: 'P1', durationSeconds: 5 },
      { status: 'answered', providerCallId: 'P1' },
    ]);
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 5, disposition: 'interested' });
    expectWrittenOnce(finalizeRun, { runId: 7, callStatus: 'completed', durationSeconds: 5, conversation });
  });

  it.concurrent('keeps the first terminal status: repeats and later ones change nothing', async () => {
    const { activities, finalizeRun, mocks } = concludingActivities();
    const outcome = await runCall(activities, [
      { status: 'ringing' },
      { status: 'busy', providerCallId: 'P1' },
      { status: 'busy', providerCallId: 'P1' },
      { status: 'completed', providerCallId: 'P1', durationSeconds: 3 },
    ]);
    expect(outcome).toEqual({ runId: 7, callStatus: 'busy', durationSeconds: 0, disposition: 'busy' });
    expectCalledAsOnce(finalizeRun);
    expect(mocks.runConversation).not.toHaveBeenCalled();
  });

  it.concurrent("ignores another call's events", async () => {
    const { activities } = concludingActivities();
    const outcome = await runCall(activities, [
      { status: 'failed', providerCallId: 'OTHER' },
      { status: 'no-answer', providerCallId: 'P1' },
    ]);
    expect(outcome.callStatus).toBe('no-answer');
  });

  it.concurrent('asks the provider when no webhook comes', async () => {
    const statuses: CallStatusUpdate[] = [
      { status: 'answered' },
      { status: 'completed', providerCallId: 'P1', durationSeconds: 4 },
    ];
    const { activities, mocks } = concludingActivities({
      getCallStatus: jest.fn(() => Promise.resolve(statuses.length > 1 ? (statuses.shift() ?? null) : statuses[0]!)),
    });
    const outcome = await runCall(activities);
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 4, disposition: 'interested' });
    expect(mocks.hangupCall).not.toHaveBeenCalled();
  });

  it.concurrent(
    'looks an answered call up at doubling intervals up to the cap, and ends when the provider says so',
    async () => {
      // No webhook at all: the provider says `answered` five times, then `completed`.
      let lookups = 0;
      const { activities } = concludingActivities({
        getCallStatus: jest.fn(() => {
          lookups += 1;
          return Promise.resolve<CallStatusUpdate>(
            lookups > 5
              ? { status: 'completed', providerCallId: 'P1', durationSeconds: 12 }
              : { status: 'answered', providerCallId: 'P1' },
          );
        }),
      });
      const { outcome, localActivities, events } = await runCallWithHistory(activities, [], {
        maxDurationSeconds: 60,
        statusPollSeconds: 1,
        answeredStatusPollMaxSeconds: 4,
        provider: 'twilio',
      });
      expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 12, disposition: 'interested' });
      // Every 1 s while it rings; once answered 1, 2, 4 s, then the cap; each wait's summary says when.
      const timers = events.filter((event) => event.timerStartedEventAttributes);
      expect(timers.map((event) => Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds))).toEqual([
        1, 1, 2, 4, 4, 4,
      ]);
      expect(userMetadataSummaries(timers)).toEqual([
        'wait for answer; ask twilio in 1 s',
        'wait for the call to end; ask twilio in 1 s',
        'wait for the call to end; ask twilio in 2 s',
        'wait for the call to end; ask twilio in 4 s',
        'wait for the call to end; ask twilio in 4 s',
        'wait for the call to end; ask twilio in 4 s',
      ]);
      expect(localActivities.filter((type) => type === 'getCallStatus')).toHaveLength(6);
    },
  );

  it.concurrent('never waits past max_call_duration to look an answered call up', async () => {
    const { activities, mocks } = concludingActivities({
      ...answeredUntilHungUp({ status: 'completed', durationSeconds: 3 }),
    });
    const { outcome, events } = await runCallWithHistory(activities, [{ status: 'answered', providerCallId: 'P1' }], {
      maxDurationSeconds: 5,
      statusPollSeconds: 2,
      answeredStatusPollMaxSeconds: 120,
    });
    expectCalledAsOnce(mocks.hangupCall);
    expect(outcome.callStatus).toBe('completed');
    // 2 s, then at most what is left of the 5 s, not the 4 s and 8 s the doubling would give.
    const talkWaits = events
      .filter((event) => event.timerStartedEventAttributes)
      .filter((event) => userMetadataSummaries([event])[0]?.startsWith('wait for the call to end'))
      .map((event) => {
        const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
        return Number(timeout?.seconds ?? 0) + (timeout?.nanos ?? 0) / 1e9;
      });
    expect(talkWaits.length).toBeGreaterThan(0);
    expect(Math.max(...talkWaits)).toBeLessThanOrEqual(3);
    expect(talkWaits.reduce((sum, wait) => sum + wait, 0)).toBeLessThanOrEqual(5);
  });

  it.concurrent('hangs up at max_call_duration and takes the final status', async () => {
    const { activities, mocks } = concludingActivities({
      ...answeredUntilHungUp({ status: 'completed', durationSeconds: 2 }),
    });
    const outcome = await runCall(activities, [{ status: 'answered', providerCallId: 'P1' }], {
      maxDurationSeconds: 2,
    });
    expectCalledAsOnce(mocks.hangupCall);
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 2, disposition: 'interested' });
  });

  it.concurrent('hangs up an unanswered call at the ring timeout as no-answer', async () => {
    const { activities, finalizeRun, mocks } = concludingActivities({
      getCallStatus: jest.fn(() => Promise.resolve<CallStatusUpdate>({ status: 'ringing' })),
    });
    const outcome = await runCall(activities, [], { ringTimeoutSeconds: 2 });
    expectCalledAsOnce(mocks.hangupCall);
    expect(outcome.callStatus).toBe('no-answer');
    expect(finalizeRun.mock.calls[0]?.[0]).toMatchObject({ callStatus: 'no-answer', conversation: null });
  });

  it.concurrent(
    'takes its own hang-up of a ringing call (canceled) as no-answer, even when the hang-up fails',
    async () => {
      let hungUp = false;
      const { activities, finalizeRun } = concludingActivities({
        hangupCall: jest.fn(() => {
          hungUp = true;
          return Promise.reject(new CallSetupError('the provider is down'));
        }),
        getCallStatus: jest.fn(() =>
          Promise.resolve<CallStatusUpdate>({ status: hungUp ? 'canceled' : 'ringing', durationSeconds: 0 }),
        ),
      });
      const outcome = await runCall(activities, [], { ringTimeoutSeconds: 1 });
      expect(outcome.callStatus).toBe('no-answer');
      expectCalledAsOnce(finalizeRun);
    },
  );

  it.concurrent('is listed by its outcome once it ends (`CallStatus` and `Disposition`)', async () => {
    const { activities } = concludingActivities();
    const taskQueue = uniqueTaskQueue('call-search-attributes');
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      taskQueue,
      workflowBundle: testWorkflowBundle(),
      dataConverter: testDataConverter,
      activities: {
        checkDialRules: () => Promise.resolve({ dial: true }),
        preCallFetch: noPreCallFetch,
        ...activities,
      },
    });
    const finished = { completed: '', busy: '' };
    await worker.runUntil(async () => {
      for (const status of ['completed', 'busy'] as const) {
        const handle = await temporal.client.workflow.start(callWorkflow, {
          workflowId: `${taskQueue}-${status}`,
          taskQueue,
          args: [{ runId: 7, attempt: 1, maxDurationSeconds: 30, conversation: 'simulated' }],
        });
        await handle.signal(callStatusSignal, { status, providerCallId: 'P1', durationSeconds: 1 });
        await handle.result();
        finished[status] = handle.workflowId;
      }
    });
    const listed = async (query: string): Promise<string[]> => {
      const ids: string[] = [];
      for await (const execution of temporal.client.workflow.list({
        query: `TaskQueue = "${taskQueue}" AND ${query}`,
      })) {
        ids.push(execution.workflowId);
      }
      return ids;
    };
    // Visibility is written after the workflow closes: wait for it.
    await waitFor('the calls in visibility', async () => (await listed('CallStatus = "busy"')).length > 0);
    expect(await listed('CallStatus = "completed"')).toEqual([finished.completed]);
    expect(await listed('CallStatus = "busy"')).toEqual([finished.busy]);
    expect(await listed('Disposition = "interested"')).toEqual([finished.completed]);
  });

  it.concurrent('ends a refused call as failed without dialing again', async () => {
    const { activities, mocks } = concludingActivities({
      placeCall: jest.fn(() => Promise.reject(new ProviderRefusedError('Invalid number'))),
    });
    const outcome = await runCall(activities);
    expect(outcome).toEqual({ runId: 7, callStatus: 'failed', durationSeconds: 0, disposition: 'failed' });
    // No signals race this call's workflow task: a second dial could only be a retry of the refusal.
    expect(mocks.placeCall).toHaveBeenCalledTimes(1);
  });

  const VOICEMAIL = { text: 'Hi Ada, please call us back.', seconds: 1 };

  /**
   * A live call answered by a person, then (once the workflow has taken the answer and is talking)
   * judged a machine; `endedBy`: what the process holding the stream reports once asked to speak the
   * message (nothing: never asked).
   */
  async function machineMidCall(voicemailAction: 'hang_up' | 'leave_message', endedBy?: ConversationResult['endedBy']) {
    const requestLiveVoicemail = jest.fn(async ({ runId }: { runId: number; text: string }) => {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
      const played: ConversationResult = { ...conversation, endedBy: endedBy ?? 'error', nodePath: [String(runId)] };
      await temporal.client.workflow.getHandle(workflowId).signal(conversationEndedSignal, played);
      return true;
    });
    const fakes = concludingActivities({
      voicemailMessage: jest.fn(() => Promise.resolve(VOICEMAIL)),
      requestLiveVoicemail,
      ...answeredUntilHungUp({ status: 'completed', providerCallId: 'P1', durationSeconds: 12 }),
    });
    const { outcome } = await runCallWithHistory(
      fakes.activities,
      [{ status: 'answered', providerCallId: 'P1', answeredBy: 'machine' }],
      { conversation: 'live', voicemailAction, maxDurationSeconds: 600 },
      {
        before: async (handle) => {
          await handle.signal(callStatusSignal, { status: 'answered', providerCallId: 'P1' });
          await waitFor('the answer to be taken', async () => {
            const kinds = ((await handle.fetchHistory()).events ?? []).map((event) => event.eventType);
            const signalled = kinds.lastIndexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
            return signalled >= 0 && kinds.lastIndexOf(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) > signalled;
          });
        },
      },
    );
    expect(outcome).toMatchObject({ runId: 7, callStatus: 'voicemail', durationSeconds: 12 });
    expectCalledAsOnce(fakes.mocks.hangupCall);
    return { ...fakes, outcome };
  }

  it.concurrent('hangs up a live call whose machine verdict comes while it talks, as voicemail (hang_up)', async () => {
    const { mocks, finalizeRun, outcome } = await machineMidCall('hang_up');
    expect(mocks.voicemailMessage).not.toHaveBeenCalled();
    expect(mocks.requestLiveVoicemail).not.toHaveBeenCalled();
    expect(finalizeRun.mock.calls[0]?.[0]?.voicemail).toBeUndefined();
    expect(outcome.disposition).toBe('voicemail');
  });

  it.concurrent('has the stream speak the message, then hangs up as voicemail_left (leave_message)', async () => {
    const { mocks, finalizeRun, outcome } = await machineMidCall('leave_message', 'voicemail');
    expectCalledAsOnce(mocks.requestLiveVoicemail);
    expect(mocks.requestLiveVoicemail.mock.calls[0]?.[0]).toEqual({ runId: 7, text: VOICEMAIL.text });
    expect(finalizeRun.mock.calls[0]?.[0]?.voicemail).toEqual(VOICEMAIL);
    expect(outcome.disposition).toBe('voicemail_left');
  });

  it.concurrent('claims no message the stream could not play (leave_message, text-to-speech failed)', async () => {
    const { mocks, finalizeRun, outcome } = await machineMidCall('leave_message', 'error');
    expectCalledAsOnce(mocks.requestLiveVoicemail);
    expect(finalizeRun.mock.calls[0]?.[0]?.voicemail).toBeUndefined();
    expect(outcome.disposition).toBe('voicemail');
  });
});

describe('a live call whose transfer does not connect', () => {
  /** The conversation as the stream reports it when the agent asks for the transfer (tool call 1). */
  const askedTransfer: ConversationResult = {
    ...conversation,
    disposition: 'transferred',
    endedBy: 'transfer',
    toolCalls: [
      {
        sequence: 1,
        tool_uuid: 'tool-1',
        function: 'put_through',
        arguments: {},
        status: 'ok',
        duration_ms: 1,
        result_excerpt: '',
        at: '2026-01-01T00:00:01.000Z',
        node_id: 'start',
      },
    ],
    transfer: { sequence: 1, toolUuid: 'tool-1', destination: '+14155550486', mode: 'blind', ringTimeoutSeconds: 20 },
  };
  const carriedOn: ConversationResult = {
    ...conversation,
    transcript: [
      ...conversation.transcript,
      { at: '2026-01-01T00:00:09.000Z', role: 'assistant', text: 'I could not put you through. Let us carry on.' },
    ],
    disposition: 'callback_requested',
  };

  it.concurrent(
    'hands the conversation back to the stream with why, and writes the carried-on conversation and the attempt',
    async () => {
      const fakes = concludingActivities({
        startTransfer: jest.fn(() => Promise.resolve({ transferId: 'T1' })),
        getTransferStatus: jest.fn(() => Promise.resolve({ status: 'busy' as const, transferId: 'T1' })),
        ...answeredUntilHungUp({ status: 'completed', providerCallId: 'P1', durationSeconds: 40 }),
      });
      const { outcome } = await runCallWithHistory(
        fakes.activities,
        [{ status: 'answered', providerCallId: 'P1' }],
        { conversation: 'live', maxDurationSeconds: 600 },
        {
          before: async (handle) => {
            await handle.signal(callStatusSignal, { status: 'answered', providerCallId: 'P1' });
            await handle.signal(conversationStartedSignal);
            await handle.signal(conversationEndedSignal, askedTransfer);
            // The API process holding the stream asks until the transfer has settled.
            const resume = await waitFor(
              'the conversation to be handed back',
              async () => (await handle.query(liveResumeQuery)).resume ?? undefined,
              { timeoutMs: 30_000, intervalMs: 200 },
            );
            expect(resume).toEqual({
              previous: askedTransfer,
              transferFailed: 'transfer_failed: the line was busy',
              attempts: 1,
            });
            // A retried report of the conversation that asked for the transfer changes nothing.
            await handle.signal(conversationEndedSignal, askedTransfer);
            await handle.signal(conversationStartedSignal);
            await handle.signal(conversationEndedSignal, carriedOn);
          },
        },
      );
      expect(outcome).toMatchObject({ runId: 7, callStatus: 'completed', disposition: 'callback_requested' });
      const written = fakes.finalizeRun.mock.calls[0]?.[0];
      expect(written?.conversation).toEqual(carriedOn);
      expect(written?.transfers).toEqual([
        expect.objectContaining({ outcome: 'busy', mode: 'blind', reason: 'transfer_failed: the line was busy' }),
      ]);
      // The call was not hung up for the failed transfer: only at its end, by the agent.
      expectCalledAsOnce(fakes.mocks.hangupCall);
    },
  );
});

const link: CampaignCallLink = { parentWorkflowId: 'campaign-1', campaignId: 1, contactId: '11', attempt: 1 };

/** A campaign's call with the simulator's text-only callee, as the campaign starts it. */
const simulatedCampaignCall: Partial<CallWorkflowInput> = { conversation: 'simulated', campaign: link };

describe('callWorkflow, ending in one local activity', () => {
  it.concurrent('runs the conversation of a call already over when answered and writes it, in one step', async () => {
    const { activities, finalizeRun, reports } = concludingActivities();
    const { outcome, localActivities } = await runCallWithHistory(
      activities,
      [{ status: 'completed', providerCallId: 'P1', durationSeconds: 5 }],
      simulatedCampaignCall,
    );
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 5, disposition: 'interested' });
    expect(localActivities).toEqual(['checkDialRules', 'preCallFetch', 'placeCall', 'concludeCall']);
    expectWrittenOnce(finalizeRun, { runId: 7, callStatus: 'completed', durationSeconds: 5, conversation });
    expect(reports).toEqual([]);
  });

  it.concurrent('talks while the call lasts, then writes the conversation it had', async () => {
    const { activities, finalizeRun, mocks } = concludingActivities({
      getCallStatus: jest.fn(() => Promise.resolve<CallStatusUpdate>({ status: 'completed', durationSeconds: 4 })),
    });
    const { outcome, localActivities } = await runCallWithHistory(activities, [
      { status: 'answered', providerCallId: 'P1' },
    ]);
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 4, disposition: 'interested' });
    expect(localActivities).toEqual([
      'checkDialRules',
      'preCallFetch',
      'placeCall',
      'runConversation',
      'getCallStatus',
      'concludeCall',
    ]);
    expectCalledAsOnce(mocks.runConversation);
    expectWrittenOnce(finalizeRun, { runId: 7, callStatus: 'completed', durationSeconds: 4, conversation });
  });

  it.concurrent('writes an unanswered call without a conversation', async () => {
    const { activities, finalizeRun, mocks, reports } = concludingActivities();
    const { outcome, localActivities } = await runCallWithHistory(
      activities,
      [{ status: 'busy', providerCallId: 'P1' }],
      simulatedCampaignCall,
    );
    expect(outcome).toEqual({ runId: 7, callStatus: 'busy', durationSeconds: 0, disposition: 'busy' });
    expect(localActivities).toEqual(['checkDialRules', 'preCallFetch', 'placeCall', 'concludeCall']);
    expect(mocks.runConversation).not.toHaveBeenCalled();
    expect(finalizeRun.mock.calls[0]?.[0]).toMatchObject({ callStatus: 'busy', conversation: null });
    expect(reports).toEqual([]);
  });

  it.concurrent('tries a failing conversation twice, then writes the call without one', async () => {
    const { activities, finalizeRun, mocks } = concludingActivities({
      runConversation: jest.fn(() => Promise.reject(new Error('engine down'))),
    });
    const outcome = await runCall(
      activities,
      [{ status: 'completed', providerCallId: 'P1', durationSeconds: 5 }],
      simulatedCampaignCall,
    );
    expect(outcome).toEqual({ runId: 7, callStatus: 'completed', durationSeconds: 5, disposition: 'completed' });
    expect(mocks.runConversation).toHaveBeenCalledTimes(2);
    expect(finalizeRun.mock.calls[0]?.[0]).toMatchObject({ callStatus: 'completed', conversation: null });
  });

  it.concurrent('does not try again a conversation whose run cannot be used', async () => {
    const { activities, mocks } = concludingActivities({
      runConversation: jest.fn(() => Promise.reject(new CallSetupError('Run 7 has no telephony configuration'))),
    });
    const outcome = await runCall(
      activities,
      [{ status: 'completed', providerCallId: 'P1', durationSeconds: 5 }],
      simulatedCampaignCall,
    );
    expect(outcome.disposition).toBe('completed');
    expect(mocks.runConversation).toHaveBeenCalledTimes(1);
  });
});

describe('a campaign call, which reports by signal only when asked', () => {
  const input = simulatedCampaignCall;
  const completed: CallStatusUpdate[] = [{ status: 'completed', providerCallId: 'P1', durationSeconds: 5 }];

  it.concurrent('does not signal its campaign, which learns the outcome from its completion', async () => {
    const { activities, reports } = concludingActivities();
    const { outcome, localActivities } = await runCallWithHistory(activities, completed, input);
    expect(outcome.callStatus).toBe('completed');
    expect(localActivities).toEqual(['checkDialRules', 'preCallFetch', 'placeCall', 'concludeCall']);
    expect(reports).toEqual([]);
  });

  it.concurrent('reports in its conclusion once asked', async () => {
    const { activities, reports } = concludingActivities();
    const { localActivities } = await runCallWithHistory(activities, completed, input, {
      before: (handle) => handle.signal(campaignReportRequestedSignal),
    });
    expect(localActivities).toEqual(['checkDialRules', 'preCallFetch', 'placeCall', 'concludeCall']);
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) expect(report).toEqual({ ...link, runId: 7, outcome: 'completed' });
  });

  it.concurrent('reports after its conclusion when asked while the conclusion ran', async () => {
    // The conversation outlasts the workflow task (2 s): the worker completes the task meanwhile,
    // and the request, sent from inside the conversation, arrives before the conclusion returns.
    const { activities, reports } = concludingActivities({
      runConversation: jest.fn(async () => {
        const execution = Context.current().info.workflowExecution;
        if (!execution) throw new Error('a call activity runs in a workflow');
        await temporal.client.workflow.getHandle(execution.workflowId).signal(campaignReportRequestedSignal);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return conversation;
      }),
    });
    const { localActivities } = await runCallWithHistory(activities, completed, input, { workflowTaskTimeout: '2s' });
    expect(localActivities).toEqual([
      'checkDialRules',
      'preCallFetch',
      'placeCall',
      'concludeCall',
      'reportCampaignCall',
    ]);
    expect(reports).toEqual([{ ...link, runId: 7, outcome: 'completed' }]);
  });
});

describe('a transfer that does not join', () => {
  const askedForTransfer: ConversationResult = {
    ...conversation,
    disposition: 'transferred',
    endedBy: 'transfer',
    transfer: {
      sequence: 1,
      toolUuid: 'tool-1',
      destination: '+14155550999',
      mode: 'warm',
      ringTimeoutSeconds: 20,
      announcement: 'A caller about billing.',
    },
  };

  it.concurrent('releases the caller it may have left waiting, then the conversation carries on', async () => {
    const runConversation = jest
      .fn()
      .mockResolvedValueOnce(askedForTransfer)
      .mockResolvedValue(conversation) as unknown as CallActivities['runConversation'];
    const { activities, mocks } = concludingActivities({
      runConversation,
      startTransfer: jest.fn(() => Promise.resolve({ transferId: 'T1' })),
      getTransferStatus: jest.fn(() => Promise.resolve({ status: 'busy' as const, transferId: 'T1' })),
      ...answeredUntilHungUp({ status: 'completed', providerCallId: 'P1', durationSeconds: 9 }),
    });

    const outcome = await runCall(activities, [{ status: 'answered', providerCallId: 'P1' }], {
      maxDurationSeconds: 3,
    });

    expect(outcome.disposition).toBe('interested');
    expectCalledAsOnce(mocks.releaseTransfer);
    expect(mocks.releaseTransfer.mock.calls[0]).toEqual([{ runId: 7, providerCallId: 'P1', transferId: 'T1' }]);
    expect(mocks.startTransfer.mock.calls[0]?.[0]).toMatchObject({
      mode: 'warm',
      announcement: 'A caller about billing.',
    });
    expect(mocks.runConversation.mock.calls[1]?.[0]).toMatchObject({
      resume: { transferFailed: 'transfer_failed: the line was busy', attempts: 1 },
    });
  });
});
