import WebSocket from 'ws';
import { pcm16ToMulaw } from '../voice/codecs';
import { twilioSignature } from '../telephony/providers/twilio/signature';
import { TwilioStreamFrames, twilioSid } from '../telephony/providers/twilio/stream-caller-frames';

/**
 * Calls as Twilio places them: a signed inbound webhook to Switchboard, the TwiML's `<Stream url>`
 * opened as a Media Streams client (20 ms µ-law frames in real time, silence included), the caller
 * speaking after each agent reply ends, then `stop` and a signed `completed` status webhook.
 * Everything a caller sends is built from strings prepared once, so that a few hundred callers cost
 * the benchmark process little.
 */

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
}

/** Caller speech prepared once: base64 µ-law payloads of 20 ms, up to its last voiced frame. */
export interface CallerSpeech {
  frames: string[];
}

const FRAME = 160;
/** µ-law of a zero sample. */
const SILENCE = Buffer.alloc(FRAME, 0xff).toString('base64');
/** No agent audio for this long after some arrived: the reply is over (the API sends 200 ms ahead at most). */
const REPLY_GAP_MS = 400;
/** The caller answers after a pause of 200 to 600 ms, so that calls do not stay in step. */
const PAUSE_MS = [200, 600] as const;
/** Longest wait for the agent to speak (greeting or answer) before the call counts as failed. */
const ANSWER_TIMEOUT_MS = 15_000;

export function prepareSpeech(samples: Int16Array, voiceLevel = 500): CallerSpeech {
  let last = samples.length - 1;
  while (last > 0 && Math.abs(samples[last] ?? 0) < voiceLevel) last -= 1;
  const frames: string[] = [];
  // The end of speech is when the last voiced frame is sent; the silence after it is the stream's own.
  for (let at = 0; at <= last; at += FRAME) {
    const frame = new Int16Array(FRAME);
    frame.set(samples.subarray(at, at + FRAME));
    frames.push(Buffer.from(pcm16ToMulaw(frame)).toString('base64'));
  }
  return { frames };
}

export interface CallPlan {
  base: string;
  account: TwilioAccount;
  /** Our number (bound to the bench agent) and the caller's. */
  to: string;
  from: string;
  speech: CallerSpeech;
  /** Caller turns, each answered by the agent, before the caller hangs up. */
  turns: number;
}

export interface CallOutcome {
  callSid: string;
  runId: number | null;
  /** Wall clock (ms) the media stream opened and the caller hung up. */
  startedAt: number;
  endedAt: number;
  /** Agent replies to caller turns. */
  answers: number;
  /** As the network saw it: end of the caller's speech (last voiced frame sent) to the first agent frame back. */
  heardMs: number[];
  failure: string | null;
}

/**
 * One timer for every open stream: each sends the frames due since its own start, so every call
 * keeps its own 20 ms clock as a provider's stream does. The timer's period sets how finely those
 * clocks are kept apart: at 1 ms a stream's frame leaves within a millisecond of its time; at 10 ms
 * (the pacing before 2026-11-24) the streams fall into two groups that send at once, 50 frames
 * arriving together at 100 calls, a burst no provider sends.
 */
export class FramePacer {
  private readonly streams = new Set<MediaStreamCaller>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly periodMs = 1) {}

  add(stream: MediaStreamCaller): void {
    this.streams.add(stream);
    this.timer ??= setInterval(() => {
      const now = Date.now();
      for (const each of this.streams) each.tick(now);
    }, this.periodMs);
  }

  delete(stream: MediaStreamCaller): void {
    this.streams.delete(stream);
    if (this.streams.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

/** Calls the Twilio fake hung up (our hang-up through its REST API), by CallSid. */
export type HangupListeners = Map<string, () => void>;

/** Places one inbound call and holds it until the caller has had `turns` answers (or it failed). */
export async function placeInboundCall(
  plan: CallPlan,
  pacer: FramePacer,
  hangups: HangupListeners,
): Promise<CallOutcome> {
  const callSid = twilioSid('CA');
  const started = Date.now();
  const outcome = (failure: string, runId: number | null = null): CallOutcome => ({
    callSid,
    runId,
    startedAt: started,
    endedAt: Date.now(),
    answers: 0,
    heardMs: [],
    failure,
  });
  const fields = {
    AccountSid: plan.account.accountSid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: 'ringing',
    Direction: 'inbound',
    From: plan.from,
    To: plan.to,
  };
  let twiml: string;
  try {
    twiml = await postSigned(plan, `${plan.base}/api/v1/telephony/twilio/inbound`, fields);
  } catch (error) {
    return outcome(`inbound webhook: ${String(error)}`);
  }
  const streamUrl = /<Stream url="([^"]+)"/.exec(twiml)?.[1];
  const runId = Number(/<Parameter name="run_id" value="(\d+)"/.exec(twiml)?.[1] ?? NaN);
  if (!streamUrl || !Number.isInteger(runId)) return outcome(`no <Stream> in the answer: ${twiml.slice(0, 200)}`);

  let socket: WebSocket;
  try {
    socket = await openSocket(unescapeXml(streamUrl));
  } catch (error) {
    return outcome(`media stream: ${String(error)}`, runId);
  }
  const caller = new MediaStreamCaller(socket, callSid, runId, plan);
  hangups.set(callSid, () => caller.hangUp('the agent hung up'));
  pacer.add(caller);
  const result = await caller.done;
  pacer.delete(caller);
  hangups.delete(callSid);
  caller.stop();
  const seconds = Math.max(1, Math.round((result.endedAt - result.startedAt) / 1000));
  try {
    await postSigned(plan, `${plan.base}/api/v1/telephony/twilio/status/${runId}`, {
      ...fields,
      CallStatus: 'completed',
      CallDuration: String(seconds),
      SequenceNumber: '0',
    });
  } catch (error) {
    return { ...result, failure: result.failure ?? `status webhook: ${String(error)}` };
  }
  return result;
}

async function postSigned(plan: CallPlan, url: string, fields: Record<string, string>): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': twilioSignature(plan.account.authToken, url, Object.entries(fields)),
    },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text.slice(0, 200)}`);
  return text;
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => {
      reject(new Error(`refused with ${response.statusCode}`));
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

const unescapeXml = (text: string): string =>
  text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

type Phase = 'listening' | 'pausing' | 'speaking' | 'waiting' | 'done';

/** The caller's side of one Twilio Media Streams socket. */
class MediaStreamCaller {
  readonly done: Promise<CallOutcome>;
  private resolve: (outcome: CallOutcome) => void = () => undefined;
  private readonly frames: TwilioStreamFrames;
  private readonly startedAt = Date.now();
  private sent = 0;
  private phase: Phase = 'listening';
  private phaseSince = Date.now();
  private spoken = 0;
  private agentFrames = 0;
  private lastAgentFrameAt = 0;
  private speechEndAt = 0;
  private sayAt = 0;
  private answers = 0;
  private readonly heardMs: number[] = [];

  constructor(
    private readonly socket: WebSocket,
    private readonly callSid: string,
    private readonly runId: number,
    private readonly plan: CallPlan,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
    socket.on('message', (data: Buffer) => this.received(data));
    socket.on('close', () => this.hangUp('the media stream closed'));
    this.frames = new TwilioStreamFrames(callSid, plan.account.accountSid);
    socket.send(this.frames.connected());
    socket.send(this.frames.start({ run_id: String(runId) }));
  }

  /** Sends the frames due by `now` and moves the conversation on. */
  tick(now: number): void {
    if (this.phase === 'done') return;
    const due = Math.floor((now - this.startedAt) / 20);
    while (this.sent < due && this.socket.readyState === WebSocket.OPEN) this.sendFrame(now);
    if (this.phase === 'listening' && this.agentFrames > 0 && now - this.lastAgentFrameAt >= REPLY_GAP_MS) {
      if (this.answers >= this.plan.turns) return this.finish(null);
      this.enter('pausing', now);
      this.sayAt = now + PAUSE_MS[0] + Math.random() * (PAUSE_MS[1] - PAUSE_MS[0]);
    } else if (this.phase === 'pausing' && now >= this.sayAt) {
      this.spoken = 0;
      this.enter('speaking', now);
    } else if ((this.phase === 'listening' || this.phase === 'waiting') && now - this.phaseSince > ANSWER_TIMEOUT_MS) {
      this.finish(this.phase === 'waiting' ? `no answer to turn ${this.answers + 1}` : 'the agent never finished');
    }
  }

  hangUp(reason: string): void {
    if (this.phase !== 'done') this.finish(this.answers >= this.plan.turns ? null : reason);
  }

  /** The caller's end of the stream: Twilio's `stop`, then the socket closes. */
  stop(): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(this.frames.stop());
    this.socket.close(1000);
  }

  private sendFrame(now: number): void {
    this.sent += 1;
    let payload = SILENCE;
    const { frames } = this.plan.speech;
    if (this.phase === 'speaking') {
      payload = frames[this.spoken] ?? SILENCE;
      this.spoken += 1;
      if (this.spoken >= frames.length) {
        this.speechEndAt = now;
        this.agentFrames = 0;
        this.enter('waiting', now);
      }
    }
    this.socket.send(this.frames.media(payload));
  }

  /** Agent frames are counted by their prefix (`twilioMedia` writes `event` first): no JSON parsing. */
  private received(data: Buffer): void {
    if (data.length < 17 || data.toString('latin1', 0, 16) !== '{"event":"media"') return;
    const now = Date.now();
    this.agentFrames += 1;
    this.lastAgentFrameAt = now;
    if (this.phase === 'waiting') {
      this.heardMs.push(now - this.speechEndAt);
      this.answers += 1;
      this.enter('listening', now);
    }
  }

  private enter(phase: Phase, now: number): void {
    this.phase = phase;
    this.phaseSince = now;
  }

  private finish(failure: string | null): void {
    if (this.phase === 'done') return;
    this.phase = 'done';
    this.resolve({
      callSid: this.callSid,
      runId: this.runId,
      startedAt: this.startedAt,
      endedAt: Date.now(),
      answers: this.answers,
      heardMs: this.heardMs,
      failure,
    });
  }
}
