import { readFile } from 'node:fs/promises';
import request from 'supertest';
import type { TranscriptLine } from '../../agent-runtime';
import { Run } from '../../entities';
import { hangUpAudioCallee } from '../../telephony/providers/simulator/audio-callee';
import { callWorkflowId } from '../../workflows/definitions';
import { callingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { transferringAgent } from '../helpers/transfer-agent';
import { startVoiceStack, type VoiceStack } from '../helpers/voice-stack';
import { recordingTracks, rms } from '../voice/audio-helpers';

const services = useTestServices();

/** How long the simulator's numbers, the transfer's destination too, ring before answering. */
const RING_SECONDS = 3;
/** Speech on a track: espeak-ng's words are far louder; the silence of a track is exactly 0. */
const SPEECH_RMS = 300;
const SECOND = 8000;
/** Speech on a loaded machine is slow: how long a condition of the call may take to come true. */
const CALL_WAIT_MS = 200_000;

/** Resolves once `check` is true, looking every half second; fails after `timeoutMs`. */
async function eventually(check: () => boolean, what: string, timeoutMs = CALL_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

let stack: VoiceStack;

beforeAll(async () => {
  stack = await startVoiceStack(services, 'live-transfer');
});

afterAll(async () => {
  await stack.close();
});

/** The loudest second of `samples` (RMS), so a short line stands out from the silence around it. */
const loudestSecond = (samples: Int16Array): number => {
  let loudest = 0;
  for (let at = 0; at + SECOND <= samples.length; at += SECOND / 4) {
    loudest = Math.max(loudest, rms(samples.subarray(at, at + SECOND)));
  }
  return loudest;
};

describe('a warm transfer on a live audio call (the simulator with audio, offline speech)', () => {
  it('holds the caller with hold audio, announces the call to the person, and leaves them talking without the agent', async () => {
    const handle = stack.app.callback();
    const org = await callingOrganization(handle, {
      ring_seconds: RING_SECONDS,
      // The caller's patience: speech runs slowly on a loaded machine. The person, once joined, says a line and goes.
      talk_seconds: 240,
      transfer_talk_seconds: 20,
      audio: true,
    });
    // The simulated caller answers the greeting "Yes, I can do that." (heard as "yeah i can do that").
    const agent = await transferringAgent(
      handle,
      org.owner.token,
      { destination_source: 'static', destination: '+14155550199', mode: 'warm', ring_timeout_seconds: 20 },
      [],
      'Transfer when the caller says yes, yeah, can, okay or sure',
    );
    // The simulated caller's answer takes a while on a loaded machine: the agent waits for it.
    await request(handle)
      .put(`/api/v1/workflow/${agent.workflowId}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ workflow_configurations: { max_user_idle_timeout: 120 } })
      .expect(200);
    const worker = await stack.createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await request(handle)
        .post(`/api/v1/public/agent/${agent.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550123' });
      expect(res.status).toBe(200);
      runId = res.body.workflow_run_id as number;
      await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
    });
    await Promise.all(stack.conversations);

    const detail = await request(handle)
      .get(`/api/v1/workflow/${agent.workflowId}/runs/${runId}`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(detail.body.transfer).toMatchObject({ outcome: 'joined', mode: 'warm' });
    expect(detail.body.disposition).toBe('transferred');

    const [transfer] = await services.db.dataSource.query<
      { started_at: Date; ring_seconds: number; announcement: string | null; hold_audio_ms: number | null }[]
    >(
      `SELECT t.started_at, t.ring_seconds, t.announcement, t.hold_audio_ms FROM simulator_transfers t
         JOIN runs r ON r.provider_call_id = t.provider_call_id WHERE r.id = $1`,
      [runId],
    );
    // The person heard a summary of the call before the caller was joined.
    expect(transfer?.announcement).toMatch(/^I have a caller for you\. They said: .+ Connecting you now\.$/);
    // The caller heard hold audio while the destination rang, not silence.
    expect(transfer?.hold_audio_ms).toBeGreaterThanOrEqual((RING_SECONDS - 1) * 1000);

    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    const lines = (run.logs.transcript as (TranscriptLine | { role: 'tool' })[]).filter(
      (line): line is TranscriptLine => line.role !== 'tool',
    );
    const timed = lines.find((line) => line.start !== undefined);
    if (!timed || transfer === undefined) throw new Error('no timed transcript line or no transfer');
    // Wall clock of the recording's first sample, from a line's start in both clocks.
    const recordingStartMs = Date.parse(timed.at) - (timed.start ?? 0) * 1000;
    const joinedAt = transfer.started_at.getTime() + transfer.ring_seconds * 1000;
    const joinedSample = Math.max(0, Math.round(((joinedAt - recordingStartMs) / 1000) * SECOND));

    const { caller, agent: agentTrack } = recordingTracks(await readFile(`${stack.recordingsDir}/${runId}.wav`));
    expect(caller.length).toBeGreaterThan(joinedSample + 3 * SECOND);
    // The person's line is in the recording once they were joined; the agent says nothing after it.
    expect(loudestSecond(caller.subarray(joinedSample))).toBeGreaterThan(SPEECH_RMS);
    expect(rms(agentTrack.subarray(joinedSample))).toBe(0);
    const repliesAfter = (stack.events.get(runId) ?? []).filter(
      (event) => event.type === 'reply' && event.at > joinedAt,
    );
    expect(repliesAfter).toEqual([]);
    // The agent's last words were its transfer message.
    expect(lines.filter((line) => line.role === 'assistant').at(-1)?.text).toContain('Let me put you through.');
  }, 420_000);
});

describe('a transfer on a live audio call that does not connect', () => {
  it('brings the agent back to the caller, tells the model why, and records the failed attempt', async () => {
    const handle = stack.app.callback();
    const org = await callingOrganization(handle, {
      ring_seconds: RING_SECONDS,
      // The caller's patience; the test hangs up once the agent is back.
      talk_seconds: 240,
      audio: true,
    });
    // The simulated caller answers the greeting "Yes, I can do that." (heard as "yeah i can do that"); its
    // next line ("Okay, that works for me.") shares no word with the tool, so the agent transfers once.
    // The destination's last digits (0486) make it busy.
    const agent = await transferringAgent(
      handle,
      org.owner.token,
      { destination_source: 'static', destination: '+14155550486', mode: 'blind', ring_timeout_seconds: 20 },
      [],
      'Transfer when the caller says yes, yeah or can',
    );
    await request(handle)
      .put(`/api/v1/workflow/${agent.workflowId}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ workflow_configurations: { max_user_idle_timeout: 120 } })
      .expect(200);
    const worker = await stack.createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await request(handle)
        .post(`/api/v1/public/agent/${agent.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550123' });
      expect(res.status).toBe(200);
      runId = res.body.workflow_run_id as number;
      const agentSaid = (text: string) =>
        (stack.events.get(runId) ?? []).some((event) => event.type === 'reply' && event.text?.includes(text));
      await eventually(() => agentSaid('could not put you through'), 'the agent to come back after the busy line');
      // The agent is back on the same stream: the caller hangs up.
      const providerCallId = stack.sessions.find((session) => session.runId === runId)?.start?.providerCallId;
      if (!providerCallId) throw new Error('no media stream for the run');
      hangUpAudioCallee(providerCallId);
      await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
    });
    await Promise.all(stack.conversations);

    const detail = await request(handle)
      .get(`/api/v1/workflow/${agent.workflowId}/runs/${runId}`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(detail.body.transfer).toMatchObject({
      outcome: 'busy',
      mode: 'blind',
      reason: 'transfer_failed: the line was busy',
    });
    expect(detail.body.disposition).not.toBe('transferred');

    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    const assistant = (run.logs.transcript as (TranscriptLine | { role: 'tool' })[])
      .filter((line): line is TranscriptLine => line.role === 'assistant')
      .map((line) => line.text);
    // The transfer message, then the agent back with the reason the model was given.
    const transferMessage = assistant.findIndex((text) => text.includes('Let me put you through.'));
    expect(transferMessage).toBeGreaterThanOrEqual(0);
    expect(assistant.slice(transferMessage + 1).join(' ')).toContain(
      'I could not put you through (transfer_failed: the line was busy).',
    );
    // The transfer tool's result, as the model saw it, is the failure.
    const toolCalls = run.logs.tool_calls as { function: string; status: string; result_excerpt: string }[];
    expect(toolCalls[0]).toMatchObject({ status: 'failed' });
    expect(toolCalls[0]?.result_excerpt).toContain('transfer_failed: the line was busy');
  }, 420_000);
});
