import { readFile } from 'node:fs/promises';
import request from 'supertest';
import { Run } from '../../entities';
import type { TranscriptLine } from '../../agent-runtime';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { PocketsphinxStt } from '../../voice/speech/pocketsphinx-stt';
import { recognize, synthesize } from '../../voice/speech/whole';
import { parseWavHeader } from '../../voice/wav';
import { callingOrganization, definitionWithTrigger, triggerPathOf } from '../helpers/calls';
import { createAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';
import { startVoiceStack, type VoiceStack } from '../helpers/voice-stack';
import { recordingTracks, rms } from '../voice/audio-helpers';

const services = useTestServices();
let stack: VoiceStack;

const GREETING = 'Hello, this is Switchboard calling about your appointment.';

/** start (greeting) → talk → end, spoken by the offline policy through espeak-ng. */
function spokenDefinition() {
  const definition = definitionWithTrigger();
  const nodes = definition.nodes.map((node) => {
    if (node.id === 'start')
      return { ...node, data: { ...node.data, greeting: GREETING, prompt: 'Confirm the appointment.' } };
    if (node.id === 'talk') return { ...node, data: { ...node.data, prompt: 'Is Tuesday at three good for you?' } };
    if (node.id === 'end') return { ...node, data: { ...node.data, prompt: 'Thank you, goodbye.' } };
    return node;
  });
  return { ...definition, nodes };
}

/** Uploads `csv`, creates a campaign over it (no retries) and runs it to its end; its id. */
async function runCampaign(apiKey: string, csv: string, settings: Record<string, unknown>): Promise<number> {
  const api = (method: 'get' | 'post', path: string) =>
    request(stack.app.callback())[method](`/api/v1${path}`).set('X-API-Key', apiKey);
  const source = await api('post', '/campaign/sources?file_name=contacts.csv')
    .set('Content-Type', 'text/csv')
    .send(csv);
  expect(source.status).toBe(201);
  const created = await api('post', '/campaign/create').send({
    source_type: 'csv',
    source_id: source.body.source_id as string,
    retry_config: { enabled: false, max_retries: 0, retry_delay_seconds: 1 },
    ...settings,
  });
  expect(created.status).toBe(201);
  const campaignId = created.body.id as number;
  const worker = await stack.createWorker();
  await worker.runUntil(async () => {
    expect((await api('post', `/campaign/${campaignId}/start`)).status).toBe(200);
    const deadline = Date.now() + 150_000;
    for (;;) {
      const campaign = await api('get', `/campaign/${campaignId}`);
      if (campaign.body.state === 'completed') break;
      if (Date.now() > deadline) throw new Error(`campaign still ${campaign.body.state as string}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
  return campaignId;
}

beforeAll(async () => {
  stack = await startVoiceStack(services, 'calls-audio');
});

afterAll(async () => {
  await stack.close();
});

describe('a simulator call with audio: the agent and a simulated person talk on the media stream', () => {
  it('completes with a spoken conversation, a timed transcript, turn latencies and a two-track recording', async () => {
    const org = await callingOrganization(stack.app.callback(), { ring_seconds: 0, talk_seconds: 60, audio: true });
    const agent = await createAgent(stack.app.callback(), org.owner.token, spokenDefinition(), 'Spoken agent');
    const worker = await stack.createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await request(stack.app.callback())
        .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550123' });
      expect(res.status).toBe(200);
      runId = res.body.workflow_run_id as number;
      const outcome = await services.temporal.client.workflow.getHandle(`call-${runId}`).result();
      expect(outcome).toMatchObject({ runId, callStatus: 'completed', disposition: 'completed' });
    });
    await Promise.all(stack.conversations);

    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    const transcript = run.logs.transcript as TranscriptLine[];
    expect(run.logs.ended_by).toBe('end_node');
    expect(run.logs.node_path).toEqual(['start', 'talk', 'end']);
    expect(transcript[0]).toMatchObject({ role: 'assistant', text: GREETING });
    expect(transcript.filter((line) => line.role === 'assistant').map((line) => line.text)).toEqual([
      GREETING,
      'Is Tuesday at three good for you?',
      'Thank you, goodbye.',
    ]);
    // What PocketSphinx made of the simulated person's espeak-ng speech: words, in the caller's turns.
    const heard = transcript.filter((line) => line.role === 'user');
    expect(heard).toHaveLength(2);
    for (const line of heard) expect(line.text.length).toBeGreaterThan(0);
    // Times are the recording's, in order.
    for (const [index, line] of transcript.entries()) {
      expect(line.end).toBeGreaterThan(line.start ?? Infinity);
      if (index > 0) expect(line.start).toBeGreaterThanOrEqual(transcript[index - 1]?.end ?? 0);
    }
    const latencies = run.logs.turn_latency as Record<string, number>[];
    expect(latencies).toHaveLength(2);
    for (const latency of latencies) {
      expect(latency.total).toBeGreaterThan(0);
      expect(latency.total).toBeGreaterThanOrEqual(latency.stt! + latency.tts! + latency.overhead!);
    }
    expect(run.recordingUrl).toBe(`/api/v1/workflow/${agent.id}/runs/${runId}/recording`);
    const wav = await readFile(`${stack.recordingsDir}/${runId}.wav`);
    const header = parseWavHeader(wav);
    expect(header).toMatchObject({ channels: 2, sampleRate: 8000 });
    // Both people spoke: energy on both tracks.
    const tracks = recordingTracks(wav);
    expect(rms(tracks.caller)).toBeGreaterThan(0);
    expect(rms(tracks.agent)).toBeGreaterThan(0);
    expect(run.gatheredContext).toMatchObject({ call_status: 'completed', mapped_call_disposition: 'completed' });
  }, 120_000);
});

describe('a campaign on the simulator with audio', () => {
  it('completes with a recording and a transcript for every answered call', async () => {
    const org = await callingOrganization(stack.app.callback(), { ring_seconds: 0, talk_seconds: 60, audio: true });
    const agent = await createAgent(stack.app.callback(), org.owner.token, spokenDefinition(), 'Spoken campaign agent');
    // Three people answer; the fourth number is busy.
    const csv = ['phone_number', '+14155551201', '+14155551202', '+14155551203', '+14155550486'].join('\n');
    const campaignId = await runCampaign(org.apiKey, csv, {
      name: 'Spoken campaign',
      workflow_id: agent.id,
      // One call at a time: three live conversations at once make two cores fall behind real time.
      max_concurrency: 1,
    });
    await Promise.all(stack.conversations);
    const runs = await services.db.dataSource.getRepository(Run).findBy({ campaignId });
    expect(runs).toHaveLength(4);
    const answered = runs.filter((run) => run.gatheredContext.call_status === 'completed');
    expect(answered).toHaveLength(3);
    for (const run of answered) {
      expect(run.recordingUrl).toBe(`/api/v1/workflow/${agent.id}/runs/${run.id}/recording`);
      const transcript = run.logs.transcript as TranscriptLine[];
      expect(transcript[0]).toMatchObject({ role: 'assistant', text: GREETING });
      expect(transcript.some((line) => line.role === 'user')).toBe(true);
      expect(run.transcriptUrl).not.toBeNull();
    }
    const busy = runs.find((run) => run.calledNumber === '+14155550486');
    expect(busy?.gatheredContext.call_status).toBe('busy');
    expect(busy?.recordingUrl).toBeNull();
  }, 200_000);
});

describe('a campaign call a voicemail box answers, on the simulator with audio', () => {
  it("speaks the agent's rendered voicemail message into the live call and ends as voicemail_left", async () => {
    const org = await callingOrganization(stack.app.callback(), { ring_seconds: 0, talk_seconds: 60, audio: true });
    const agent = await createAgent(stack.app.callback(), org.owner.token, spokenDefinition(), 'Voicemail agent');
    const configured = await request(stack.app.callback())
      .put(`/api/v1/workflow/${agent.id}`)
      .set('X-API-Key', org.apiKey)
      .send({
        workflow_configurations: {
          voicemail_message: 'Hi {{first_name}}, this is Acme Dental. Please call us back today.',
        },
      });
    expect(configured.status).toBe(200);
    // The simulator's voicemail number: a box answers, beeps, and records.
    const campaignId = await runCampaign(org.apiKey, 'phone_number,first_name\n+14155550600,Grace\n', {
      name: 'Voicemail campaign',
      workflow_id: agent.id,
      voicemail_action: 'leave_message',
    });
    await Promise.all(stack.conversations);

    const [run, ...others] = await services.db.dataSource.getRepository(Run).findBy({ campaignId });
    expect(others).toHaveLength(0);
    const text = 'Hi Grace, this is Acme Dental. Please call us back today.';
    expect(run?.gatheredContext).toMatchObject({
      call_status: 'voicemail',
      mapped_call_disposition: 'voicemail_left',
      voicemail_message: text,
    });
    expect(run?.logs.transcript).toEqual([expect.objectContaining({ role: 'assistant', text })]);
    // The box heard it: the agent's track of the recording carries at least the message's worth of speech.
    const agentTrack = recordingTracks(await readFile(`${stack.recordingsDir}/${run?.id}.wav`)).agent;
    // As much speech as the message synthesized alone (the agent's voice is espeak-ng's here), and words.
    const alone = await synthesize(new EspeakTts(), [text], { sampleRate: 8000 });
    expect(countVoicedSeconds(agentTrack)).toBeGreaterThanOrEqual(0.8 * countVoicedSeconds(alone));
    const words = await recognize(new PocketsphinxStt(), agentTrack, { sampleRate: 8000 });
    expect(words.map((part) => part.text).join(' ')).toMatch(/\w/);
  }, 150_000);
});

/** Seconds of a track's 20 ms frames loud enough to be speech. */
function countVoicedSeconds(track: Int16Array): number {
  let voiced = 0;
  for (let at = 0; at + 160 <= track.length; at += 160) {
    if (rms(track.subarray(at, at + 160)) >= 300) voiced += 1;
  }
  return voiced * 0.02;
}
