import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import request from 'supertest';
import WebSocket from 'ws';
import type { TranscriptLine } from '../../agent-runtime';
import { Run } from '../../entities';
import { ensureChromium } from '../../scripts/chromium';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { synthesize } from '../../voice/speech/whole';
import { wavHeader } from '../../voice/wav';
import { createApiKey, signUp } from '../helpers/accounts';
import { createAgent } from '../helpers/agents';
import { definitionWithTrigger } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { startVoiceStack, type VoiceStack } from '../helpers/voice-stack';
import { waitFor } from '../helpers/wait-for';
import { recordingTracks, rms } from '../voice/audio-helpers';

const services = useTestServices();
let stack: VoiceStack;
let browser: Browser;
let workDir: string;
let microphoneWav: string;

const GREETING = 'Hello, this is Switchboard.';
const REPLY = 'Is Tuesday at three good for you?';
/** What the person says into the fake microphone; PocketSphinx hears it as "yeah i can do that" or near. */
const SENTENCE = 'Yes, I can do that.';
const RATE = 16_000;

/** start (greeting) → talk → end, spoken by the offline policy through espeak-ng. */
function spokenDefinition() {
  const definition = definitionWithTrigger();
  const nodes = definition.nodes.map((node) => {
    if (node.id === 'start') return { ...node, data: { ...node.data, greeting: GREETING, prompt: 'Greet.' } };
    if (node.id === 'talk') return { ...node, data: { ...node.data, prompt: REPLY } };
    if (node.id === 'end') return { ...node, data: { ...node.data, prompt: 'Thank you, goodbye.' } };
    return node;
  });
  return { ...definition, nodes };
}

/**
 * The fake microphone (16 kHz mono WAV), which Chromium plays in a loop from the moment the page
 * takes the microphone: 6 s of silence (the greeting plays), the sentence, 5 s of silence. However
 * long the greeting takes on a loaded machine, a repetition comes after it.
 */
async function microphoneRecording(path: string): Promise<void> {
  const speech = await synthesize(new EspeakTts(), [SENTENCE], { sampleRate: RATE, voice: 'en-us+klatt' });
  const silence = (seconds: number) => new Int16Array(RATE * seconds);
  const samples = new Int16Array([...silence(6), ...speech, ...silence(5)]);
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  await writeFile(path, Buffer.concat([wavHeader(RATE, 1, data.length), data]));
}

beforeAll(async () => {
  const executablePath = await ensureChromium((line) => process.stdout.write(`${line}\n`));
  workDir = await mkdtemp(join(tmpdir(), 'web-call-'));
  microphoneWav = join(workDir, 'microphone.wav');
  await microphoneRecording(microphoneWav);
  stack = await startVoiceStack(services, 'web-call');
  browser = await chromium.launch({
    executablePath,
    args: [
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphoneWav}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

interface PageCall {
  state: string;
  agentPeak: number;
  lines: { role: string; text: string }[];
  ended: string | null;
}

describe('a web call from a real browser (Chromium, fake microphone) over WebRTC', () => {
  it('hears the sentence, plays the agent in the page, records both and ends through the call workflow', async () => {
    const owner = await signUp(stack.app.callback());
    const { api_key: apiKey } = await createApiKey(stack.app.callback(), owner.token);
    const agent = await createAgent(stack.app.callback(), owner.token, spokenDefinition(), 'Web agent');
    const worker = await stack.createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await request(stack.app.callback())
        .post(`/api/v1/workflow/${agent.id}/web-call`)
        .set('X-API-Key', apiKey)
        .send({ initial_context: { first_name: 'Ada' } });
      expect(res.status).toBe(200);
      runId = res.body.workflow_run_id as number;
      expect(res.body.page_url).toBe(`${stack.baseUrl}/web-call#run=${runId}&token=${res.body.token as string}`);

      const page = await browser.newPage();
      await page.goto(res.body.page_url as string);
      // Runs in the page, where `globalThis` is its window.
      const pageCall = () => page.evaluate(() => (globalThis as unknown as { webCall: PageCall }).webCall);
      let seen: PageCall | null = null;
      await waitFor('the page to connect', async () => (await pageCall()).state === 'connected', {
        timeoutMs: 25_000,
        intervalMs: 100,
      });
      // Reused while still within its 30 s, the token is refused: it was single use.
      await expect(webSocketStatus(res.body.signalling_url as string)).resolves.toBe(409);
      // The agent's reply to the sentence reaches the page: as text, and as sound in its audio element.
      const shown = await waitFor(
        () => `the agent's reply in the page (${JSON.stringify(seen)})`,
        async () => {
          const call = await pageCall();
          seen = call;
          const said = call.lines.findIndex((line) => line.role === 'user');
          return said >= 0 && call.lines.slice(said).some((line) => line.text === REPLY) ? call : null;
        },
        { timeoutMs: 90_000, intervalMs: 250 },
      );
      expect(shown.state).toBe('connected');
      expect(shown.lines[0]).toEqual({ role: 'assistant', text: GREETING });
      expect(shown.agentPeak).toBeGreaterThan(0.01);
      const screenshot = process.env.WEB_CALL_SCREENSHOT;
      if (screenshot) await page.screenshot({ path: screenshot });

      // The person hangs up, unless the agent already said goodbye to the repeated sentence.
      // (A click on the disabled button of an ended call does nothing.)
      await page.evaluate(() =>
        (globalThis as unknown as { document: { getElementById(id: string): { click(): void } } }).document
          .getElementById('hangup')
          .click(),
      );
      const outcome = await services.temporal.client.workflow.getHandle(`call-${runId}`).result();
      expect(outcome).toMatchObject({ runId, callStatus: 'completed' });
      await page.close();
    });
    await Promise.all(stack.conversations);

    const run = await waitFor(
      'the recording',
      async () => {
        const found = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
        return found.recordingUrl ? found : null;
      },
      { timeoutMs: 30_000 },
    );
    expect(run.provider).toBe('web');
    expect(run.callType).toBe('inbound');
    const transcript = run.logs.transcript as TranscriptLine[];
    expect(transcript[0]).toMatchObject({ role: 'assistant', text: GREETING });
    const heard = transcript.filter((line) => line.role === 'user').map((line) => line.text);
    expect(heard.length).toBeGreaterThan(0);
    // Through Opus, WebRTC and the resampler, PocketSphinx still makes out the sentence's words.
    expect(heard.join(' ')).toMatch(/\b(yes|yeah|can|do|that)\b/);
    expect(transcript.some((line) => line.role === 'assistant' && line.text === REPLY)).toBe(true);
    expect(run.callDurationSeconds).toBeGreaterThan(0);
    expect(run.gatheredContext).toMatchObject({ call_status: 'completed' });
    const wav = await readFile(`${stack.recordingsDir}/${runId}.wav`);
    const tracks = recordingTracks(wav);
    expect(rms(tracks.caller)).toBeGreaterThan(0);
    expect(rms(tracks.agent)).toBeGreaterThan(0);
  }, 240_000);

  it('ends as no-answer when nobody joins in time, and an expired token is refused', async () => {
    const owner = await signUp(stack.app.callback());
    const agent = await createAgent(stack.app.callback(), owner.token, spokenDefinition(), 'Unjoined agent');
    const res = await request(stack.app.callback())
      .post(`/api/v1/workflow/${agent.id}/web-call`)
      .auth(owner.token, { type: 'bearer' })
      .send({});
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    // Thirty seconds later, the token admits nobody.
    await services.db.dataSource.query(`UPDATE web_calls SET join_by = now() - interval '1 second' WHERE run_id = $1`, [
      runId,
    ]);
    const worker = await stack.createWorker();
    await worker.runUntil(async () => {
      const outcome = await services.temporal.client.workflow.getHandle(`call-${runId}`).result();
      expect(outcome).toMatchObject({ runId, callStatus: 'no-answer' });
    });
  }, 120_000);

  it('refuses another organization and an unknown agent (404), and a page of an origin not allowed (403)', async () => {
    const owner = await signUp(stack.app.callback());
    const agent = await createAgent(stack.app.callback(), owner.token, spokenDefinition(), 'Private agent');
    const other = await signUp(stack.app.callback());
    const foreign = await request(stack.app.callback())
      .post(`/api/v1/workflow/${agent.id}/web-call`)
      .auth(other.token, { type: 'bearer' })
      .send({});
    expect(foreign.status).toBe(404);
    const started = await request(stack.app.callback())
      .post(`/api/v1/workflow/${agent.id}/web-call`)
      .auth(owner.token, { type: 'bearer' })
      .send({});
    expect(started.status).toBe(200);
    await expect(webSocketStatus(started.body.signalling_url as string, 'https://evil.example')).resolves.toBe(403);
    const page = await request(stack.app.callback()).get('/web-call');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors 'self' ${stack.baseUrl}`);
  });
});

/** The HTTP status a WebSocket upgrade to `url` is refused with (101 when it opens). */
function webSocketStatus(url: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, origin ? { origin } : {});
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
    socket.on('error', reject);
  });
}
