import { readFile } from 'node:fs/promises';
import request from 'supertest';
import type { TranscriptLine } from '../../agent-runtime';
import { Run } from '../../entities';
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
