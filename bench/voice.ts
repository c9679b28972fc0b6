import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client as PgClient } from 'pg';
import { EspeakTts } from '../voice/speech/espeak-tts';
import { synthesize } from '../voice/speech/whole';
import { startFakeDeepgram } from './fakes/deepgram';
import { startFakeElevenLabs } from './fakes/elevenlabs';
import type { LocalServer } from './fakes/local-server';
import { startFakeChat } from './fakes/openai-chat';
import { startFakeToolApi, type FakeToolApi } from './fakes/tool-api';
import { startFakeTwilioApi } from './fakes/twilio-api';
import {
  createApiKey,
  migrate,
  mib,
  postJson,
  say,
  startApi,
  startDatabase,
  type Database,
  type RunningApi,
} from './helpers';
import { machineCpuMeter } from './machine-cpu';
import { readRuns } from './voice-runs';
import { cpuMeter, findProcess, treeCpuMs } from './process-cpu';
import {
  sampleMemory,
  startTemporal,
  startWorker,
  temporalMode,
  type RunningTemporal,
  type RunningWorker,
} from './temporal-worker';
import {
  FramePacer,
  placeInboundCall,
  prepareSpeech,
  type CallOutcome,
  type CallPlan,
  type HangupListeners,
  type TwilioAccount,
} from './twilio-caller';
import {
  levelFigures,
  printTable,
  printToolTable,
  type LevelFigures,
  type Percentiles,
  type RunRecord,
} from './voice-figures';

/**
 * `npm run bench:voice`: Switchboard's own latency per turn of a live call, and how many
 * simultaneous calls one API process carries. The speech providers and the language model are
 * local servers of fixed latency, served by this process (bench/fakes): Deepgram answers each
 * Finalize in 150 ms, the chat completions endpoint sends its first token 300 ms after the request,
 * ElevenLabs its first audio 100 ms after the first text. Calls come in as Twilio places them
 * (bench/twilio-caller.ts): a signed inbound webhook to a number bound to the bench agent, the
 * TwiML's media stream paced in real time, the caller answering each agent reply, K turns, then the
 * stream's stop and a signed `completed` status webhook. Each level is a fresh batch of N calls
 * started within 5 s of each other; every turn's `TurnLatency` is read from the run's
 * `logs.turn_latency` once the call workflow has written it.
 *
 * On the caller turns BENCH_VOICE_TOOL_TURNS (default 2 and 4) the model first calls the agent's
 * `http_api` tool (a bearer-token credential, a local API answering in 100 ms) and answers from its
 * result: those turns measure what a tool round adds, the others are the plain turns beside them.
 *
 * Services as `npm run bench:calls` runs them: PostgreSQL, the Temporal dev server, the worker and
 * the API each from their real entry point.
 */

const LEVELS = (process.env.BENCH_VOICE_LEVELS ?? '1,10,25,50,100,150,200')
  .split(',')
  .map((level) => Number(level.trim()))
  .filter((level) => Number.isInteger(level) && level > 0);
const TURNS = Number(process.env.BENCH_VOICE_TURNS ?? 4);
/** The callers' frame timer (ms): 1 keeps each call's 20 ms clock its own; 10 is the older, bursty pacing. */
const PACER_MS = Number(process.env.BENCH_VOICE_PACER_MS ?? 1);
/** Set: the API process is profiled (`node --cpu-prof`) into this directory. */
const CPU_PROFILE_DIR = process.env.BENCH_VOICE_CPU_PROFILE_DIR;
const WARMUP_CALLS = 2;
/** A level's calls start this far apart, at most, and all within START_WINDOW_MS. */
const START_GAP_MS = 100;
const START_WINDOW_MS = 5_000;
/** After the last caller hung up, how long the runs may take to be written. */
const RUNS_TIMEOUT_MS = 60_000;
/** Rest between levels: the previous level's calls are written and its garbage collected. */
const REST_MS = 3_000;
/** Turns a level plans at least: small levels run several batches in a row. */
const MIN_LEVEL_TURNS = 40;
const LOOP_RESOLUTION_MS = 10;

const STT_FINAL_MS = 150;
const LLM_FIRST_TOKEN_MS = 300;
const TTS_FIRST_AUDIO_MS = 100;
const FIXED_LATENCY_MS = STT_FINAL_MS + LLM_FIRST_TOKEN_MS + TTS_FIRST_AUDIO_MS;
const TARGET_OVERHEAD_P95_MS = 50;
const TARGET_CALLS = 100;
/** The caller turns with a tool round. */
const TOOL_TURNS = (process.env.BENCH_VOICE_TOOL_TURNS ?? '2,4')
  .split(',')
  .map((turn) => Number(turn.trim()))
  .filter((turn) => Number.isInteger(turn) && turn > 1 && turn <= TURNS);
/** The tool's own answer time, left out of what Switchboard adds. */
const TOOL_ANSWER_MS = 100;
const TARGET_TOOL_ROUND_P95_MS = 30;
const TOOL_TOKEN = 'bench-tool-token';
const TOOL = {
  name: 'Find slots',
  description: 'Finds the free appointment slots on a day.',
  /** Its function name for the model: the name lower-cased, anything but a-z, 0-9 and _ as _. */
  functionName: 'find_slots',
  arguments: { day: 'Friday' },
  answer: { day: 'Friday', free: ['15:00', '16:30'] },
  reply: ['Friday at three is free.', 'Shall I book it for you?'],
};

const CALLER_TEXT = 'I would like to move my appointment to Friday afternoon.';
const CALLER_VOICE = 'en-us+klatt';
const AGENT_REPLY = ['Sure, I can help with that.', 'Which time on Friday suits you best?'];
/** Seconds of synthesized reply each TTS answer carries. */
const REPLY_SECONDS = 1.5;
const OUR_NUMBER = '+14155550123';
const KEYS = { deepgram: 'bench-deepgram-key', elevenlabs: 'bench-elevenlabs-key', llm: 'bench-llm-key' };
const LLM_MODEL = 'bench-model';

/**
 * The agent: a greeting, then the start node for every turn, which offers the tool. Its one edge
 * (to the end node) has a condition the fake model never takes, so the caller's turns repeat in the
 * start node.
 */
const agentWith = (toolUuid: string) => ({
  name: 'Voice bench agent',
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
          tool_uuids: [toolUuid],
        },
      },
      { id: 'end', type: 'endCall', position: { x: 0, y: 100 }, data: { name: 'End', prompt: 'Say goodbye.' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller says goodbye' } },
    ],
  },
  workflow_configurations: { stt_provider: 'deepgram', tts_provider: 'elevenlabs' },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fakes {
  deepgram: LocalServer;
  chat: LocalServer;
  elevenlabs: LocalServer;
  twilio: Awaited<ReturnType<typeof startFakeTwilioApi>>;
  tool: FakeToolApi;
}

async function startFakes(account: TwilioAccount, hangups: HangupListeners): Promise<Fakes> {
  const espeak = new EspeakTts();
  const reply = await synthesize(espeak, AGENT_REPLY, { sampleRate: 8000 });
  return {
    deepgram: await startFakeDeepgram({ apiKey: KEYS.deepgram, text: CALLER_TEXT, finalMs: STT_FINAL_MS }),
    chat: await startFakeChat({
      apiKey: KEYS.llm,
      model: LLM_MODEL,
      sentences: AGENT_REPLY,
      firstTokenMs: LLM_FIRST_TOKEN_MS,
      tool: { name: TOOL.functionName, arguments: TOOL.arguments, turns: TOOL_TURNS, sentences: TOOL.reply },
    }),
    elevenlabs: await startFakeElevenLabs({
      apiKey: KEYS.elevenlabs,
      reply: reply.subarray(0, Math.min(reply.length, REPLY_SECONDS * 8000)),
      firstAudioMs: TTS_FIRST_AUDIO_MS,
    }),
    twilio: await startFakeTwilioApi({ ...account, onHangup: (callSid) => hangups.get(callSid)?.() }),
    tool: await startFakeToolApi({ token: TOOL_TOKEN, answerMs: TOOL_ANSWER_MS, answer: TOOL.answer }),
  };
}

/**
 * The API key, the tool's credential and the tool, the agent, a Twilio configuration and our
 * number bound to the agent, through the API.
 */
async function setUpInboundNumber(base: string, account: TwilioAccount, toolApi: LocalServer): Promise<void> {
  const headers = { 'X-API-Key': await createApiKey(base) };
  const credential = await postJson<{ uuid: string }>(
    `${base}/api/v1/credentials`,
    { name: 'Slots API', credential_type: 'bearer_token', credential_data: { token: TOOL_TOKEN } },
    headers,
  );
  const tool = await postJson<{ tool_uuid: string }>(
    `${base}/api/v1/tools`,
    {
      name: TOOL.name,
      description: TOOL.description,
      definition: {
        type: 'http_api',
        config: {
          method: 'GET',
          url: `${toolApi.httpUrl}/slots/{{day}}`,
          credential_uuid: credential.uuid,
          parameters: [{ name: 'day', type: 'string', description: 'The day the caller asks about' }],
        },
      },
    },
    headers,
  );
  const agent = await postJson<{ id: number }>(
    `${base}/api/v1/workflow/create/definition`,
    agentWith(tool.tool_uuid),
    headers,
  );
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
}

interface Bench {
  api: RunningApi;
  pg: PgClient;
  account: TwilioAccount;
  pacer: FramePacer;
  hangups: HangupListeners;
  speech: CallPlan['speech'];
  processes: Record<string, number | null>;
}

interface Batch {
  outcomes: CallOutcome[];
  runs: RunRecord[];
  apiCpuMs: number;
  byProcess: Record<string, number>;
  machineBusyPercent: number;
  apiPeakRssBytes: number;
  benchLoopDelayP99Ms: number;
}

/** `calls` simultaneous calls, started within START_WINDOW_MS, measured from the first start to the last hang-up. */
async function runBatch(bench: Bench, calls: number): Promise<Batch> {
  const pid = bench.api.pid ?? 0;
  const gap = Math.min(START_GAP_MS, START_WINDOW_MS / calls);
  const plan = (index: number): CallPlan => ({
    base: bench.api.base,
    account: bench.account,
    to: OUR_NUMBER,
    from: `+1415555${String(1000 + (index % 9000))}`,
    speech: bench.speech,
    turns: TURNS,
  });
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loopDelay.enable();
  const memory = sampleMemory(pid);
  const machine = machineCpuMeter();
  const cpu = cpuMeter(bench.processes);
  const apiCpuBefore = treeCpuMs(pid);
  const outcomes: CallOutcome[] = await Promise.all(
    Array.from({ length: calls }, (_, index) =>
      sleep(index * gap).then(() => placeInboundCall(plan(index), bench.pacer, bench.hangups)),
    ),
  );
  const apiCpuMs = treeCpuMs(pid) - apiCpuBefore;
  const byProcess = cpu.stop();
  const machineBusyPercent = machine.stop();
  const apiPeakRssBytes = memory.stop();
  loopDelay.disable();
  const runIds = outcomes.flatMap((call) => (call.runId === null ? [] : [call.runId]));
  return {
    outcomes,
    runs: await readRuns(bench.pg, runIds, RUNS_TIMEOUT_MS),
    apiCpuMs,
    byProcess,
    machineBusyPercent,
    apiPeakRssBytes,
    // The histogram counts the timer's own period.
    benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS,
  };
}

/**
 * A level: batches of `calls` simultaneous calls, one after another, until at least MIN_LEVEL_TURNS
 * turns were planned (the 1-call baseline needs several calls for a p95 that means something).
 */
async function runLevel(
  bench: Bench,
  calls: number,
): Promise<{ figures: LevelFigures; byProcess: Record<string, number> }> {
  const rounds = Math.max(1, Math.ceil(MIN_LEVEL_TURNS / (calls * TURNS)));
  const batches: Batch[] = [];
  for (let round = 0; round < rounds; round++) batches.push(await runBatch(bench, calls));
  const sum = (pick: (batch: Batch) => number) => batches.reduce((total, batch) => total + pick(batch), 0);
  const byProcess: Record<string, number> = {};
  for (const batch of batches) {
    for (const [name, cpuMs] of Object.entries(batch.byProcess)) byProcess[name] = (byProcess[name] ?? 0) + cpuMs;
  }
  const figures = levelFigures({
    simultaneous: calls,
    outcomes: batches.flatMap((batch) => batch.outcomes),
    runs: batches.flatMap((batch) => batch.runs),
    turnsPerCall: TURNS,
    fixedLatencyMs: FIXED_LATENCY_MS,
    toolTurns: TOOL_TURNS,
    toolAnswerMs: TOOL_ANSWER_MS,
    llmFirstTokenMs: LLM_FIRST_TOKEN_MS,
    apiCpuMs: sum((batch) => batch.apiCpuMs),
    apiPeakRssBytes: Math.max(...batches.map((batch) => batch.apiPeakRssBytes)),
    machineBusyPercent: sum((batch) => batch.machineBusyPercent) / batches.length,
    benchLoopDelayP99Ms: Math.max(...batches.map((batch) => batch.benchLoopDelayP99Ms)),
  });
  return { figures, byProcess };
}

/** The largest level up to which every level kept `measure`'s p95 within twice the baseline's, with no failed turn. */
function carriedLevel(levels: LevelFigures[], measure: (level: LevelFigures) => Percentiles): number {
  const limit = 2 * (levels[0] ? measure(levels[0]).p95 : NaN);
  let carried = 0;
  for (const level of levels) {
    if (level.failedTurns > 0 || !(measure(level).p95 <= limit)) break;
    carried = level.calls;
  }
  return carried;
}

/**
 * The goals, by the pipeline's own `overhead` and by the added latency (total less the fakes' fixed
 * latencies). The first leaves out what the API spends while a provider's answer waits on its busy
 * event loop or detector (it is counted in `stt`, `llm` and `tts`); the second does not.
 */
function verdict(levels: LevelFigures[], baseline: LevelFigures): void {
  const goal = (met: boolean) => (met ? 'met' : 'NOT met');
  for (const [name, measure] of [
    ['overhead', (level: LevelFigures) => level.overhead],
    ['added', (level: LevelFigures) => level.added],
  ] as const) {
    const p95 = measure(baseline).p95;
    const carried = carriedLevel(levels, measure);
    console.log(
      `${name}: p95 ${p95} ms at ${baseline.calls} call(s) (goal < ${TARGET_OVERHEAD_P95_MS} ms: ` +
        `${goal(p95 < TARGET_OVERHEAD_P95_MS)}); within 2 × that and no failed turn up to ${carried} ` +
        `simultaneous calls (goal ≥ ${TARGET_CALLS}: ${goal(carried >= TARGET_CALLS)})`,
    );
  }
}

/** The tool round's goal: what it adds, p95, at TARGET_CALLS simultaneous calls (the level nearest below, if not run). */
function toolVerdict(levels: LevelFigures[]): void {
  const level = levels.filter((figures) => figures.calls <= TARGET_CALLS).at(-1);
  if (!level || level.toolTurns === 0) return;
  const { toolRound, toolRoundPaired } = level;
  console.log(
    `tool round at ${level.calls} calls: p95 ${toolRound.p95} ms (tool turns' added p95 ${level.toolAdded.p95} − plain ` +
      `turns' ${level.added.p95}; paired per call ${toolRoundPaired.p95}), goal < ${TARGET_TOOL_ROUND_P95_MS} ms at ` +
      `${TARGET_CALLS} calls: ${level.calls >= TARGET_CALLS && toolRound.p95 < TARGET_TOOL_ROUND_P95_MS && level.failedTurns === 0 ? 'met' : 'NOT met'}`,
  );
}

async function main(): Promise<void> {
  if (LEVELS.length === 0 || !Number.isInteger(TURNS) || TURNS < 1) {
    throw new Error('BENCH_VOICE_LEVELS must list positive integers and BENCH_VOICE_TURNS be one or more');
  }
  if (!Number.isInteger(PACER_MS) || PACER_MS < 1 || PACER_MS > 20) {
    throw new Error('BENCH_VOICE_PACER_MS must be a whole number of milliseconds from 1 to 20');
  }
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-voice-'));
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
  try {
    const speech = prepareSpeech(
      await synthesize(new EspeakTts(), [CALLER_TEXT], { sampleRate: 8000, voice: CALLER_VOICE }),
    );
    fakes = await startFakes(account, hangups);
    database = await startDatabase();
    await migrate(database.url);
    temporal = await startTemporal(dir, temporalMode(), database.url);
    const secretsKey = randomBytes(32).toString('hex');
    const shared = {
      TEMPORAL_ADDRESS: temporal.address,
      SECRETS_KEY: secretsKey,
      TELEPHONY_API_BASE_URL: fakes.twilio.httpUrl,
    };
    api = await startApi(
      database.url,
      {
        ...shared,
        RECORDINGS_DIR: join(dir, 'recordings'),
        DEEPGRAM_API_KEY: KEYS.deepgram,
        DEEPGRAM_BASE_URL: fakes.deepgram.httpUrl,
        ELEVENLABS_API_KEY: KEYS.elevenlabs,
        ELEVENLABS_BASE_URL: fakes.elevenlabs.wsUrl,
        LLM_BASE_URL: `${fakes.chat.httpUrl}/v1`,
        LLM_API_KEY: KEYS.llm,
        LLM_MODEL,
        // The tool's API is on 127.0.0.1: the development setting that lets webhooks and tools reach it.
        ALLOW_PRIVATE_WEBHOOKS: 'true',
      },
      // A CPU profile of the API over the whole run, written when it stops.
      CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [],
    );
    worker = await startWorker({ ...shared, DATABASE_URL: database.url, PUBLIC_BASE_URL: api.base });
    await setUpInboundNumber(api.base, account, fakes.tool);
    pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    const bench: Bench = {
      api,
      pg,
      account,
      pacer: new FramePacer(PACER_MS),
      hangups,
      speech,
      processes: {
        api: api.pid ?? null,
        worker: worker.pid,
        temporal: temporal.pid,
        postgres: findProcess('bin/postgres', `-p ${new URL(database.url).port}`),
      },
    };
    say(`Temporal: ${temporal.mode}`);
    say(
      `services up; levels ${LEVELS.join(', ')} simultaneous calls, ${TURNS} caller turns each, frames paced every ${PACER_MS} ms; ` +
        `fakes: STT final ${STT_FINAL_MS} ms, LLM first token ${LLM_FIRST_TOKEN_MS} ms, TTS first audio ${TTS_FIRST_AUDIO_MS} ms`,
    );
    // Warm-up: JIT, connection pools, the VAD model's first sessions; not measured.
    const warm = await runLevel(bench, WARMUP_CALLS);
    if (warm.figures.failedTurns > 0) throw new Error(`warm-up calls failed: ${warm.figures.failures.join('; ')}`);

    const levels: LevelFigures[] = [];
    for (const calls of LEVELS) {
      await sleep(REST_MS);
      const { figures, byProcess } = await runLevel(bench, calls);
      levels.push(figures);
      const perProcess = Object.entries(byProcess)
        .map(([name, cpuMs]) => `${name} ${(cpuMs / figures.callSeconds).toFixed(1)}`)
        .join(', ');
      say(
        `${calls} calls: ${figures.turns}/${figures.planned} turns, overhead p50 ${figures.overhead.p50} / p95 ` +
          `${figures.overhead.p95} ms, total p95 ${figures.total.p95} ms, API ${figures.cpuMsPerCallSecond.toFixed(1)} ` +
          `ms CPU per call-second (by process, ms per call-second: ${perProcess}), API peak RSS ${mib(figures.apiPeakRssBytes)}`,
      );
      for (const failure of figures.failures) say(`  failed: ${failure}`);
      // Past this the API has collapsed: bigger levels would only wait out their timeouts.
      if (figures.failedTurns > figures.planned / 2) {
        say(`more than half the turns failed at ${calls} calls: the ramp stops here`);
        break;
      }
    }

    console.log(
      `live voice, ${TURNS} caller turns a call; latencies in ms (added = total - ${FIXED_LATENCY_MS} ms of fakes):`,
    );
    printTable(levels);
    const baseline = levels[0];
    if (baseline) verdict(levels, baseline);
    if (TOOL_TURNS.length > 0) {
      console.log(
        `tool rounds on caller turns ${TOOL_TURNS.join(', ')}; in ms (tool turn added = total - ` +
          `${FIXED_LATENCY_MS + TOOL_ANSWER_MS + LLM_FIRST_TOKEN_MS} ms of fakes: a second first token and the tool's ` +
          `${TOOL_ANSWER_MS} ms; tool request = logs.tool_calls duration - ${TOOL_ANSWER_MS} ms):`,
      );
      printToolTable(levels);
      console.log(`the tool's API answered ${fakes.tool.answered} requests and refused ${fakes.tool.refused}`);
      toolVerdict(levels);
    }
  } finally {
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
