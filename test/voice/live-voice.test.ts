import request from 'supertest';
import type WebSocket from 'ws';
import type { TranscriptLine } from '../../agent-runtime';
import { Run } from '../../entities';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { PocketsphinxStt } from '../../voice/speech/pocketsphinx-stt';
import { recognize, synthesize } from '../../voice/speech/whole';
import { mediaStreamUrl, mediaTokenKey } from '../../voice/media-token';
import { Downsampler16kTo8k } from '../../voice/resample';
import { callWorkflow } from '../../workflows/call.workflow';
import { callStatusSignal, callWorkflowId, conversationEndedSignal } from '../../workflows/definitions';
import { createAgent, type CreatedAgent } from '../helpers/agents';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';
import { startVoiceStack, type VoiceStack } from '../helpers/voice-stack';
import { PacedCaller } from './paced-caller';
import {
  AriClient,
  CloudonixClient,
  PlivoClient,
  TelnyxClient,
  VonageClient,
  type MediaClient,
} from './provider-media-clients';
import { connect } from './twilio-client';

const services = useTestServices();
let stack: VoiceStack;
let org: CallingOrganization;

/** Rendered from its template, and one of the phrases PocketSphinx makes out through a phone codec. */
const GREETING = 'Hello {{place | world}}.';
const CALLER_SAYS = 'Yes, I can do that.';
const CALLER_VOICE = 'en-us+klatt';

/** start (greeting) → end: the caller answers once and the agent closes. */
const definition = (allowInterrupt = false, greeting = GREETING) => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: { name: 'Start', prompt: 'Greet the caller.', greeting, allow_interrupt: allowInterrupt },
    },
    { id: 'end', type: 'endCall', position: { x: 0, y: 100 }, data: { name: 'End', prompt: 'Thank you, goodbye.' } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller answered' } }],
});

beforeAll(async () => {
  stack = await startVoiceStack(services, 'live-voice');
  org = await callingOrganization(stack.app.callback());
});

afterAll(async () => {
  await stack.close();
});

/** An answered inbound call of `provider` with its live call workflow running, as the inbound webhook leaves it. */
async function liveCall(agent: CreatedAgent, provider: string, callerNumber?: string): Promise<Run> {
  const runs = services.db.dataSource.getRepository(Run);
  const run = await runs.save({
    organizationId: org.owner.user.organization_id,
    agentId: agent.id,
    agentVersionId: agent.current_definition_id,
    name: 'live call',
    provider,
    callType: 'inbound',
    state: 'running',
    ...(callerNumber ? { callerNumber } : {}),
  });
  run.temporalWorkflowId = callWorkflowId(run.id);
  await runs.update({ id: run.id }, { temporalWorkflowId: run.temporalWorkflowId });
  await services.temporal.client.workflow.start(callWorkflow, {
    workflowId: run.temporalWorkflowId,
    taskQueue: stack.taskQueue,
    args: [
      {
        runId: run.id,
        attempt: 1,
        maxDurationSeconds: 60,
        direction: 'inbound',
        providerCallId: `PC-${run.id}`,
        conversation: 'live',
      },
    ],
  });
  return run;
}

/** Resolves once the agent has spoken (more than `after` samples) and then been silent for a second. */
async function agentFinished(client: MediaClient, after: number, timeoutMs = 30_000): Promise<Int16Array> {
  const deadline = Date.now() + timeoutMs;
  let length = client.agentAudio().length;
  let quietSince = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = client.agentAudio().length;
    if (now !== length) {
      length = now;
      quietSince = Date.now();
    } else if (length > after + client.rate / 2 && Date.now() - quietSince >= 1000) {
      return client.agentAudio().subarray(after);
    }
    if (Date.now() > deadline) throw new Error(`the agent did not finish speaking (${length} samples)`);
  }
}

/**
 * Resolves once the agent has ended the conversation and told the call workflow. A caller who hangs
 * up on hearing the last word would race the agent's own end of the call on a loaded machine.
 */
async function conversationEnded(runId: number): Promise<void> {
  const handle = services.temporal.client.workflow.getHandle(callWorkflowId(runId));
  await waitFor(
    'the agent to end the conversation',
    async () =>
      (await handle.fetchHistory()).events?.some(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === conversationEndedSignal.name,
      ),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** The provider reports the live call of `runId` completed after `seconds`; the call's outcome. */
async function providerEndsCall(runId: number, seconds: number) {
  const handle = services.temporal.client.workflow.getHandle<typeof callWorkflow>(callWorkflowId(runId));
  await handle.signal(callStatusSignal, {
    status: 'completed',
    providerCallId: `PC-${runId}`,
    durationSeconds: seconds,
  });
  return handle.result();
}

/**
 * What PocketSphinx makes of the agent's audio as the client decoded it. A 16 kHz stream carries 8 kHz
 * audio upsampled (the pipeline speaks at 8 kHz), so it is taken back down: PocketSphinx fills the empty
 * upper band of narrowband audio only (voice/speech/band-fill.ts).
 */
const heardText = async (samples: Int16Array, sampleRate: number) => {
  const narrow = sampleRate === 16000 ? new Downsampler16kTo8k().process(samples) : samples;
  const parts = await recognize(new PocketsphinxStt(), narrow, { sampleRate: 8000 });
  return parts.map((part) => part.text).join(' ');
};

interface Case {
  provider: string;
  client: (socket: WebSocket, runId: number) => MediaClient;
}

const cases: Case[] = [
  // Twilio Media Streams frames (Cloudonix's are presumed the same, so one client speaks both).
  { provider: 'twilio', client: (socket) => new CloudonixClient(socket) },
  { provider: 'plivo', client: (socket, runId) => new PlivoClient(socket, runId) },
  { provider: 'vobiz', client: (socket, runId) => new PlivoClient(socket, runId, true) },
  { provider: 'telnyx', client: (socket) => new TelnyxClient(socket) },
  { provider: 'vonage', client: (socket, runId) => new VonageClient(socket, runId) },
  { provider: 'cloudonix', client: (socket) => new CloudonixClient(socket) },
  { provider: 'ari', client: (socket) => new AriClient(socket, 'json', 'ulaw') },
];

describe.each(cases)('a live call over $provider media streams', ({ provider, client: clientOf }) => {
  it('greets with the rendered greeting, hears the caller, closes, and records a timed transcript', async () => {
    const agent = await createAgent(stack.app.callback(), org.owner.token, definition(), `Live ${provider}`);
    const worker = await stack.createWorker();
    await worker.runUntil(async () => {
      const run = await liveCall(agent, provider);
      const url = mediaStreamUrl(stack.baseUrl, mediaTokenKey(stack.secrets), { provider, runId: run.id });
      const connection = await connect(url);
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      const client = clientOf(connection.socket, run.id);
      const caller = new PacedCaller(client);
      client.begin();
      caller.start();

      const greeting = await agentFinished(client, 0);
      expect(await heardText(greeting, client.rate)).toBe('hello world');

      caller.say(
        await synthesize(new EspeakTts(), [CALLER_SAYS], {
          sampleRate: client.rate as 8000 | 16000,
          voice: CALLER_VOICE,
        }),
      );
      const closing = await agentFinished(client, greeting.length);
      expect(closing.length / client.rate).toBeGreaterThan(0.5);
      await conversationEnded(run.id);

      // The caller hangs up: the stream ends and the provider reports the call completed.
      caller.stop();
      client.stop();
      const outcome = await providerEndsCall(run.id, 9);
      expect(outcome).toMatchObject({ callStatus: 'completed', disposition: 'completed' });

      const done = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id });
      const transcript = done.logs.transcript as TranscriptLine[];
      expect(transcript.map((line) => [line.role, line.role === 'assistant' ? line.text : '…'])).toEqual([
        ['assistant', 'Hello world.'],
        ['user', '…'],
        ['assistant', 'Thank you, goodbye.'],
      ]);
      // PocketSphinx through the provider's codec: "yeah i can do that".
      expect(transcript[1]?.text).toMatch(/\bcan do that\b/);
      expect(transcript.every((line) => typeof line.start === 'number' && (line.end ?? 0) > (line.start ?? 0))).toBe(
        true,
      );
      expect(done.logs.turn_latency).toHaveLength(1);
      expect(done.recordingUrl).not.toBeNull();
    });
  }, 90_000);
});

describe('an opt-out on a live call', () => {
  it("puts the caller's number on the do-not-call list before the agent hangs up", async () => {
    // The graph's own opt-out end: reaching it is the opt-out, whatever the caller said.
    const plain = definition();
    const optOutEnd = {
      ...plain,
      nodes: plain.nodes.map((node) => (node.id === 'end' ? { ...node, data: { ...node.data, opt_out: true } } : node)),
    };
    const agent = await createAgent(stack.app.callback(), org.owner.token, optOutEnd, 'Live opt-out');
    const worker = await stack.createWorker();
    await worker.runUntil(async () => {
      const run = await liveCall(agent, 'twilio', '+14155550177');
      const url = mediaStreamUrl(stack.baseUrl, mediaTokenKey(stack.secrets), { provider: 'twilio', runId: run.id });
      const connection = await connect(url);
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      const client = new CloudonixClient(connection.socket);
      const caller = new PacedCaller(client);
      client.begin();
      caller.start();
      const greeting = await agentFinished(client, 0);
      caller.say(await synthesize(new EspeakTts(), [CALLER_SAYS], { sampleRate: 8000, voice: CALLER_VOICE }));
      await agentFinished(client, greeting.length);
      await conversationEnded(run.id);

      // Listed by the time the workflow hears the conversation ended, while the call is still up.
      const listed = await services.db.dataSource.query<{ source: string; run_id: number }[]>(
        `SELECT source, run_id FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = $2`,
        [org.owner.user.organization_id, '+14155550177'],
      );
      expect(listed).toEqual([{ source: 'opt_out', run_id: run.id }]);
      const handle = services.temporal.client.workflow.getHandle(callWorkflowId(run.id));
      expect((await handle.describe()).status.name).toBe('RUNNING');

      caller.stop();
      client.stop();
      expect(await providerEndsCall(run.id, 6)).toMatchObject({ callStatus: 'completed', disposition: 'opt_out' });
    });
  }, 90_000);
});

describe('barge-in on a live call', () => {
  it('stops the agent within 200 ms of the caller starting to speak and clears the provider buffer', async () => {
    const long =
      'Hello world. I am calling about your appointment next week, and I would like to go over a few details with you before we confirm it.';
    const agent = await createAgent(stack.app.callback(), org.owner.token, definition(true, long), 'Interruptible');
    const worker = await stack.createWorker();
    await worker.runUntil(async () => {
      const run = await liveCall(agent, 'twilio');
      const url = mediaStreamUrl(stack.baseUrl, mediaTokenKey(stack.secrets), { provider: 'twilio', runId: run.id });
      const connection = await connect(url);
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      const client = new CloudonixClient(connection.socket);
      const caller = new PacedCaller(client);
      const clears: number[] = [];
      connection.socket.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString('utf8')) as { event?: string }).event === 'clear') clears.push(Date.now());
      });
      client.begin();
      caller.start();
      // A second of the greeting, then the caller talks over it.
      while (client.agentAudio().length < 8000) await new Promise((resolve) => setTimeout(resolve, 20));
      caller.say(await synthesize(new EspeakTts(), [CALLER_SAYS], { sampleRate: 8000, voice: CALLER_VOICE }));
      while (clears.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const atClear = client.agentAudio().length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Nothing of the greeting after the clear: the rest was never sent.
      expect(client.agentAudio().length).toBe(atClear);

      const events = stack.events.get(run.id) ?? [];
      const started = events.find((event) => event.type === 'speech_started');
      const interrupted = events.find((event) => event.type === 'interrupted');
      expect(started && interrupted).toBeTruthy();
      expect(interrupted!.at - started!.at).toBeLessThan(200);
      expect(clears[0]! - started!.at).toBeLessThan(200);
      // The detector needs 0.2 s of speech to be sure; it fired soon after the caller began.
      expect(started!.at - caller.spokeAt[0]!).toBeLessThan(600);
      // Far less than the greeting was played: about a second of its ~9 s.
      expect(atClear / 8000).toBeLessThan(3);

      await agentFinished(client, atClear);
      await conversationEnded(run.id);
      caller.stop();
      client.stop();
      await providerEndsCall(run.id, 5);
      const done = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id });
      const transcript = done.logs.transcript as TranscriptLine[];
      expect(transcript.map((line) => line.role)).toEqual(['assistant', 'user', 'assistant']);
      // The greeting's line ends where the caller cut it off.
      expect((transcript[0]?.end ?? 0) - (transcript[0]?.start ?? 0)).toBeLessThan(3);
    });
  }, 90_000);
});

describe('a live call whose pipeline cannot start', () => {
  it('is hung up and ends with the pipeline_error disposition instead of leaving the caller in silence', async () => {
    // ElevenLabs is chosen but no key is set for it: speech cannot be set up.
    const res = await request(stack.app.callback())
      .post('/api/v1/workflow/create/definition')
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        name: 'Unspeakable',
        workflow_definition: definition(),
        workflow_configurations: { tts_provider: 'elevenlabs' },
      });
    expect(res.status).toBe(201);
    const agent = res.body as CreatedAgent;
    const worker = await stack.createWorker();
    await worker.runUntil(async () => {
      const run = await liveCall(agent, 'twilio');
      const url = mediaStreamUrl(stack.baseUrl, mediaTokenKey(stack.secrets), { provider: 'twilio', runId: run.id });
      const connection = await connect(url);
      if (!('socket' in connection)) throw new Error(`refused with ${connection.refused}`);
      const client = new CloudonixClient(connection.socket);
      client.begin();
      await conversationEnded(run.id);
      // The workflow hangs up; the provider reports the call over.
      client.stop();
      expect(await providerEndsCall(run.id, 1)).toMatchObject({
        callStatus: 'completed',
        disposition: 'pipeline_error',
      });
      expect(client.agentAudio()).toHaveLength(0);
    });
  }, 60_000);
});
