import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { ensureChromium } from '../scripts/chromium';
import { EspeakTts } from '../voice/speech/espeak-tts';
import { synthesize } from '../voice/speech/whole';
import { wavHeader } from '../voice/wav';
import { startFakeDeepgram } from './fakes/deepgram';
import { startFakeElevenLabs } from './fakes/elevenlabs';
import type { LocalServer } from './fakes/local-server';
import { startFakeChat } from './fakes/openai-chat';
import { startFakeTwilioApi } from './fakes/twilio-api';
import {
  createApiKey,
  migrate,
  postJson,
  say,
  startApi,
  startDatabase,
  type Database,
  type RunningApi,
} from './helpers';
import { machineCpuMeter } from './machine-cpu';
import { readRuns } from './voice-runs';
import { startTemporal, startWorker, temporalMode, type RunningTemporal, type RunningWorker } from './temporal-worker';
import {
  FramePacer,
  placeInboundCall,
  prepareSpeech,
  type CallOutcome,
  type HangupListeners,
  type TwilioAccount,
} from './twilio-caller';
import { pathFigures, printPaths, type PathCall } from './web-call-figures';
import { percentile } from './voice-figures';
import { placeWebCall, VOICED_LEVEL, type WebCallOutcome } from './web-caller';

/**
 * `npm run bench:web-call`: what a web call adds to each turn's latency, against a phone call to the
 * same agent in the same run. Each round starts one web call (a headless Chromium on the web-call
 * page, its fake microphone playing the caller's sentences over WebRTC) and one phone call (Twilio's
 * media stream as bench:voice places it), side by side, so both meet the same load. The speech
 * providers and the model are the local fakes of bench:voice with their fixed latencies.
 *
 * Each turn is timed on the caller's side the same way on both paths: from the caller's last voiced
 * sound (a sample of 500 of 32,768 or more) to the first voiced sound of the agent's reply, as the
 * phone caller's socket or the page's Web Audio has it (bench/web-caller.ts). The runs' own
 * `logs.turn_latency` splits it: the detector's silence (`endpointing`) and the pipeline's end of
 * speech to first audio out (`total`); the rest (`outside`) is the audio's way in and out.
 */

const CALLS = Number(process.env.BENCH_WEB_CALL_CALLS ?? 6);
/**
 * Set (a niceness, -20 to 19; below 0 needs root): the bench process (the phone caller and the fakes)
 * and the browser run at it, the services at the default. They stand for other machines (the
 * person's computer, the carrier, the providers), which other jobs on a shared machine do not slow.
 */
const REMOTE_NICE = process.env.BENCH_WEB_CALL_REMOTE_NICE;
const TURNS = Number(process.env.BENCH_WEB_CALL_TURNS ?? 4);
const WARMUP_ROUNDS = 1;
const RUNS_TIMEOUT_MS = 60_000;
const REST_MS = 1_000;

const STT_FINAL_MS = 150;
const LLM_FIRST_TOKEN_MS = 300;
const TTS_FIRST_AUDIO_MS = 100;

const CALLER_TEXT = 'I would like to move my appointment to Friday afternoon.';
const CALLER_VOICE = 'en-us+klatt';
const AGENT_REPLY = ['Sure, I can help with that.', 'Which time on Friday suits you best?'];
/** Seconds of synthesized reply each TTS answer carries. */
const REPLY_SECONDS = 1.5;
const OUR_NUMBER = '+14155550123';
const KEYS = { deepgram: 'bench-deepgram-key', elevenlabs: 'bench-elevenlabs-key', llm: 'bench-llm-key' };
const LLM_MODEL = 'bench-model';

/** The web caller's microphone (16 kHz): silence through the greeting, then each sentence with room for the reply. */
const MIC_RATE = 16_000;
const GREETING_ROOM_S = 5;
const REPLY_ROOM_S = 5;
/** After the last sentence: the recording loops, and must not start again before the bench hangs up. */
const TAIL_S = 20;

/** A greeting, then the start node for every turn: its one edge has a condition the fake model never takes. */
const AGENT = {
  name: 'Web call bench agent',
  workflow_definition: {
    nodes: [
      {
        id: 'start',
        type: 'startCall',
        position: { x: 0, y: 0 },
        data: {
          name: 'Start',
          prompt: 'Help the caller move an appointment.',
          greeting: 'Hello, this is the appointment line.',
        },
      },
      { id: 'end', type: 'endCall', position: { x: 0, y: 100 }, data: { name: 'End', prompt: 'Say goodbye.' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller says goodbye' } },
    ],
  },
  workflow_configurations: { stt_provider: 'deepgram', tts_provider: 'elevenlabs' },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples up to the last voiced one (or from the first, with `from: 'start'`): the silence around is the timeline's own. */
function trimmed(samples: Int16Array, from: 'start' | 'end'): Int16Array {
  const level = VOICED_LEVEL * 32_768;
  if (from === 'start') {
    const first = samples.findIndex((sample) => Math.abs(sample) >= level);
    return samples.subarray(Math.max(0, first));
  }
  let last = samples.length - 1;
  while (last > 0 && Math.abs(samples[last] ?? 0) < level) last -= 1;
  return samples.subarray(0, last + 1);
}

/** Writes the microphone's WAV; answers how long it takes to reach the last sentence's end (ms). */
async function writeMicrophone(path: string): Promise<number> {
  const speech = trimmed(
    await synthesize(new EspeakTts(), [CALLER_TEXT], { sampleRate: MIC_RATE, voice: CALLER_VOICE }),
    'end',
  );
  const silence = (seconds: number) => new Int16Array(MIC_RATE * seconds);
  const parts: Int16Array[] = [silence(GREETING_ROOM_S)];
  for (let turn = 0; turn < TURNS; turn++) parts.push(speech, silence(REPLY_ROOM_S));
  parts.push(silence(TAIL_S));
  const samples = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  writeFileSync(path, Buffer.concat([wavHeader(MIC_RATE, 1, data.length), data]));
  return ((samples.length - (TAIL_S + REPLY_ROOM_S) * MIC_RATE) / MIC_RATE) * 1000;
}

interface Fakes {
  deepgram: LocalServer;
  chat: LocalServer;
  elevenlabs: LocalServer;
  twilio: Awaited<ReturnType<typeof startFakeTwilioApi>>;
}

async function startFakes(account: TwilioAccount, hangups: HangupListeners): Promise<Fakes> {
  const reply = await synthesize(new EspeakTts(), AGENT_REPLY, { sampleRate: 8000 });
  // Voiced from its first sample: the phone caller dates the reply by its first frame, the page by its first voiced sound.
  const voiced = trimmed(reply, 'start');
  return {
    deepgram: await startFakeDeepgram({ apiKey: KEYS.deepgram, text: CALLER_TEXT, finalMs: STT_FINAL_MS }),
    chat: await startFakeChat({
      apiKey: KEYS.llm,
      model: LLM_MODEL,
      sentences: AGENT_REPLY,
      firstTokenMs: LLM_FIRST_TOKEN_MS,
    }),
    elevenlabs: await startFakeElevenLabs({
      apiKey: KEYS.elevenlabs,
      reply: voiced.subarray(0, Math.min(voiced.length, REPLY_SECONDS * 8000)),
      firstAudioMs: TTS_FIRST_AUDIO_MS,
    }),
    twilio: await startFakeTwilioApi({ ...account, onHangup: (callSid) => hangups.get(callSid)?.() }),
  };
}

/** The API key, the agent, a Twilio configuration and our number bound to the agent, through the API. */
async function setUp(base: string, account: TwilioAccount): Promise<{ apiKey: string; agentId: number }> {
  const apiKey = await createApiKey(base);
  const headers = { 'X-API-Key': apiKey };
  const agent = await postJson<{ id: number }>(`${base}/api/v1/workflow/create/definition`, AGENT, headers);
  const configuration = await postJson<{ id: number }>(
    `${base}/api/v1/organizations/telephony-configs`,
    { name: 'twilio', config: { provider: 'twilio', account_sid: account.accountSid, auth_token: account.authToken } },
    headers,
  );
  const number = await postJson<{ provider_sync?: { ok: boolean; message: string } }>(
    `${base}/api/v1/organizations/telephony-configs/${configuration.id}/phone-numbers`,
    { address: OUR_NUMBER, inbound_workflow_id: agent.id },
    headers,
  );
  if (!number.provider_sync?.ok) throw new Error(`binding the number failed: ${JSON.stringify(number.provider_sync)}`);
  return { apiKey, agentId: agent.id };
}

interface Bench {
  api: RunningApi;
  browser: Browser;
  account: TwilioAccount;
  apiKey: string;
  agentId: number;
  pacer: FramePacer;
  hangups: HangupListeners;
  phoneSpeech: ReturnType<typeof prepareSpeech>;
  recordingMs: number;
}

/** One web call and one phone call, started together. */
async function runRound(bench: Bench, round: number): Promise<{ web: WebCallOutcome; phone: CallOutcome }> {
  const [web, phone] = await Promise.all([
    placeWebCall(bench.browser, {
      base: bench.api.base,
      apiKey: bench.apiKey,
      agentId: bench.agentId,
      turns: TURNS,
      recordingMs: bench.recordingMs,
    }),
    placeInboundCall(
      {
        base: bench.api.base,
        account: bench.account,
        to: OUR_NUMBER,
        from: `+1415555${String(1000 + round)}`,
        speech: bench.phoneSpeech,
        turns: TURNS,
      },
      bench.pacer,
      bench.hangups,
    ),
  ]);
  return { web, phone };
}

const loads = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  if (!Number.isInteger(CALLS) || CALLS < 1 || !Number.isInteger(TURNS) || TURNS < 1) {
    throw new Error('BENCH_WEB_CALL_CALLS and BENCH_WEB_CALL_TURNS must be whole numbers, one or more');
  }
  const remoteNice = REMOTE_NICE === undefined || REMOTE_NICE === '' ? null : Number(REMOTE_NICE);
  if (remoteNice !== null && !(Number.isInteger(remoteNice) && remoteNice >= -20 && remoteNice <= 19)) {
    throw new Error('BENCH_WEB_CALL_REMOTE_NICE must be a niceness from -20 to 19');
  }
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-web-call-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'recordings'));
  const account: TwilioAccount = {
    accountSid: `AC${randomBytes(16).toString('hex')}`,
    authToken: randomBytes(16).toString('hex'),
  };
  const hangups: HangupListeners = new Map();
  let database: Database | undefined;
  let temporal: RunningTemporal | undefined;
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  let fakes: Fakes | undefined;
  let pg: PgClient | undefined;
  let browser: Browser | undefined;
  try {
    const microphone = join(dir, 'microphone.wav');
    const recordingMs = await writeMicrophone(microphone);
    const phoneSpeech = prepareSpeech(
      await synthesize(new EspeakTts(), [CALLER_TEXT], { sampleRate: 8000, voice: CALLER_VOICE }),
    );
    fakes = await startFakes(account, hangups);
    database = await startDatabase();
    await migrate(database.url);
    temporal = await startTemporal(dir, temporalMode(), database.url);
    const shared = {
      TEMPORAL_ADDRESS: temporal.address,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      TELEPHONY_API_BASE_URL: fakes.twilio.httpUrl,
    };
    api = await startApi(database.url, {
      ...shared,
      RECORDINGS_DIR: join(dir, 'recordings'),
      DEEPGRAM_API_KEY: KEYS.deepgram,
      DEEPGRAM_BASE_URL: fakes.deepgram.httpUrl,
      ELEVENLABS_API_KEY: KEYS.elevenlabs,
      ELEVENLABS_BASE_URL: fakes.elevenlabs.wsUrl,
      LLM_BASE_URL: `${fakes.chat.httpUrl}/v1`,
      LLM_API_KEY: KEYS.llm,
      LLM_MODEL,
    });
    worker = await startWorker({ ...shared, DATABASE_URL: database.url, PUBLIC_BASE_URL: api.base });
    const { apiKey, agentId } = await setUp(api.base, account);
    pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    // After the services started (they keep the default), before the browser (its processes inherit it).
    if (remoteNice !== null) setPriority(remoteNice);
    browser = await chromium.launch({
      executablePath: await ensureChromium(say),
      args: [
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${microphone}`,
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
    const bench: Bench = {
      api,
      browser,
      account,
      apiKey,
      agentId,
      pacer: new FramePacer(),
      hangups,
      phoneSpeech,
      recordingMs,
    };
    say(`Temporal: ${temporal.mode}; bench and browser at nice ${remoteNice ?? 'as started'}, services as started`);
    say(
      `services up; ${CALLS} rounds of one web call and one phone call side by side, ${TURNS} caller turns each; ` +
        `fakes: STT final ${STT_FINAL_MS} ms, LLM first token ${LLM_FIRST_TOKEN_MS} ms, TTS first audio ${TTS_FIRST_AUDIO_MS} ms`,
    );
    // Warm-up: JIT, connection pools, the detector's first sessions, the browser's first page; not measured.
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      const warm = await runRound(bench, round);
      const failure = warm.web.failure ?? warm.phone.failure;
      if (failure) throw new Error(`warm-up calls failed: ${failure}`);
    }

    const loadBefore = loads();
    const machine = machineCpuMeter();
    const web: PathCall[] = [];
    const phone: PathCall[] = [];
    const jitterBuffers: number[] = [];
    for (let round = 0; round < CALLS; round++) {
      await sleep(REST_MS);
      const calls = await runRound(bench, WARMUP_ROUNDS + round);
      web.push(calls.web);
      phone.push(calls.phone);
      if (calls.web.jitterBufferMs !== null) jitterBuffers.push(calls.web.jitterBufferMs);
      say(
        `round ${round + 1} (load ${loads()}): web heard ${calls.web.heardMs.map((ms) => ms.toFixed(0)).join(', ')} ms` +
          `${calls.web.failure ? ` (${calls.web.failure})` : ''}, jitter buffer mean ` +
          `${calls.web.jitterBufferMs?.toFixed(0) ?? '-'} ms; phone heard ${calls.phone.heardMs.join(', ')} ms` +
          `${calls.phone.failure ? ` (${calls.phone.failure})` : ''}`,
      );
    }
    const machineBusy = machine.stop();
    const runIds = [...web, ...phone].flatMap((call) => (call.runId === null ? [] : [call.runId]));
    const runs = await readRuns(pg, runIds, RUNS_TIMEOUT_MS);
    const webFigures = pathFigures('web', web, runs, TURNS);
    const phoneFigures = pathFigures('phone', phone, runs, TURNS);

    console.log(
      `web call against phone call, ${CALLS} of each side by side, ${TURNS} caller turns a call; in ms ` +
        `(heard: caller's last voiced sound to the agent's first, at the caller; endpointing and total: the run's ` +
        `logs.turn_latency; outside = heard − endpointing − total):`,
    );
    printPaths(webFigures, phoneFigures);
    for (const failure of [...webFigures.failures, ...phoneFigures.failures]) console.log(`  failed: ${failure}`);
    console.log(
      `web call's added latency per turn (heard, web − phone): p50 ${(webFigures.heard.p50 - phoneFigures.heard.p50).toFixed(0)} ms, ` +
        `p95 ${(webFigures.heard.p95 - phoneFigures.heard.p95).toFixed(0)} ms`,
    );
    console.log(
      `the agent's audio waited in the page's jitter buffer ${percentile(jitterBuffers, 50).toFixed(0)} ms on average ` +
        `(median of the web calls' means; ${jitterBuffers.map((ms) => ms.toFixed(0)).join(', ')})`,
    );
    console.log(
      `machine: load average (1, 5, 15 min) ${loadBefore} before, ${loads()} after; busy ${machineBusy.toFixed(0)} % of both cores`,
    );
  } finally {
    await browser?.close();
    await pg?.end().catch(() => undefined);
    await api?.stop();
    await worker?.stop();
    await temporal?.stop();
    await database?.stop();
    await Promise.all(Object.values(fakes ?? {}).map((fake: LocalServer) => fake.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
