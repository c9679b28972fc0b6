import WebSocket from 'ws';
import type { Logger } from '../../../platform/logger';
import { mulawToPcm16, pcm16ToMulaw } from '../../../voice/codecs';
import { EspeakTts } from '../../../voice/speech/espeak-tts';
import { PocketsphinxStt } from '../../../voice/speech/pocketsphinx-stt';
import type { SpeechToText } from '../../../voice/speech/stt';
import type { TextToSpeech } from '../../../voice/speech/tts';
import { recognize, synthesize } from '../../../voice/speech/whole';
import { TwilioStreamFrames } from '../twilio/stream-caller-frames';

/** 20 ms of 8 kHz audio: one media frame. */
const FRAME = 160;
const FRAME_MS = 20;
/** Agent audio this loud (RMS of a frame) is speech; espeak-ng's and every TTS's speech is far above. */
const SPEECH_RMS = 300;
/** Silence after agent speech that ends the agent's turn, for the simulated person. */
const AGENT_DONE_MS = 900;

/**
 * What the simulated person says, in order; the last is repeated. A goodbye is answered in kind.
 * Chosen, with the voice, so that PocketSphinx on the agent's side makes out most of the words
 * through µ-law 8 kHz ("Yes, I can do that." comes back as "yeah i can do that").
 */
const REPLIES = ['Yes, I can do that.', 'Okay, that works for me.', 'Thank you very much.'];
const GOODBYE = 'Goodbye.';
const VOICE = 'en-us+klatt';
/** What the person a transfer reached says once joined with the caller, in a voice of their own. */
export const TRANSFER_PERSON_LINE = 'Hello, this is the sales team. How can I help you today?';
const PERSON_VOICE = 'en-us+m3';

export interface AudioCalleeOptions {
  /** The media URL the call's markup points at (with its token). */
  mediaStreamUrl: string;
  providerCallId: string;
  /** Seconds after which the person hangs up (the configuration's `talk_seconds`). */
  talkSeconds: number;
  /** A voicemail box instead of a person: it records (transcribes) what it hears and never answers. */
  machine?: boolean;
  log?: Logger;
  tts?: TextToSpeech;
  stt?: SpeechToText;
}

/** Audio callees of this process by call id, so a hang-up through the simulator reaches them. */
const active = new Map<string, AudioCallee>();

/** Hangs up the simulated person on a call, if they are on it in this process. */
export function hangUpAudioCallee(providerCallId: string): void {
  active.get(providerCallId)?.hangUp();
}

/** The simulated person on a call, if they are on it in this process. */
export function audioCalleeOf(providerCallId: string): AudioCallee | undefined {
  return active.get(providerCallId);
}

/**
 * The person on the other end of a simulator call with `audio: true`. It connects to the call's
 * media endpoint as Twilio would (Media Streams: `connected`, `start`, 20 ms µ-law `media` frames in
 * real time, silence included, `mark` echoes, `stop`), listens to the agent (an utterance ends
 * after 0.9 s of silence; PocketSphinx transcribes it) and answers with espeak-ng (klatt voice), from a fixed list
 * of friendly replies, or "Goodbye." once the agent said goodbye. It hangs up after `talkSeconds`
 * or when the call is hung up, and leaves when the socket closes. On a voicemail number it is the
 * box: silent, it only transcribes what it records. While a transfer's destination rings it hears
 * the hold audio and stays quiet; once the destination answers, the person there speaks on the
 * stream and the agent is no longer answered.
 */
export class AudioCallee {
  /** What the person heard the agent say, utterance by utterance. */
  readonly heard: string[] = [];
  readonly said: string[] = [];
  readonly done: Promise<void>;
  private readonly frames: TwilioStreamFrames;
  private readonly tts: TextToSpeech;
  private readonly stt: SpeechToText;
  private readonly socket: WebSocket;
  private outgoing: Int16Array[] = [];
  private framesSent = 0;
  private startedAt = 0;
  private ticker: NodeJS.Timeout | null = null;
  private hangupTimer: NodeJS.Timeout | null = null;
  private agentAudio: Int16Array[] = [];
  private agentSpoke = false;
  private lastAgentVoice = 0;
  private replying = false;
  private replies = 0;
  private saidGoodbye = false;
  /** Hold audio playing to the person (a transfer's destination rings), looped, and where in it. */
  private holdAudio: Int16Array | null = null;
  private holdAt = 0;
  private heldFrames = 0;
  /** Handed to someone else by a transfer: the agent is no longer on the line to answer. */
  private transferred = false;

  private constructor(private readonly options: AudioCalleeOptions) {
    this.frames = new TwilioStreamFrames(options.providerCallId);
    this.tts = options.tts ?? new EspeakTts();
    this.stt = options.stt ?? new PocketsphinxStt();
    this.socket = new WebSocket(options.mediaStreamUrl);
    this.done = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.once('open', () => this.begin());
    this.socket.on('message', (data: Buffer) => this.receive(data));
    this.socket.on('error', (error) => options.log?.warn({ err: error }, 'simulated callee media socket error'));
    void this.done.then(() => this.stop());
  }

  static connect(options: AudioCalleeOptions): AudioCallee {
    const callee = new AudioCallee(options);
    active.set(options.providerCallId, callee);
    void callee.done.then(() => active.delete(options.providerCallId));
    return callee;
  }

  /** Ends the stream as Twilio does when the call ends: `stop`, then the socket closes. */
  hangUp(): void {
    if (this.socket.readyState === WebSocket.OPEN) {
      this.send(this.frames.stop());
      this.socket.close(1000);
    } else if (this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.terminate();
    }
  }

  /** A transfer's destination rings: the person hears `samples`, looped, until `endHold`. */
  hold(samples: Int16Array): void {
    if (samples.length === 0 || this.transferred) return;
    this.holdAudio = samples;
    this.holdAt = 0;
    this.agentAudio = [];
    this.agentSpoke = false;
  }

  /** The hold is over; returns how long the person heard hold audio (ms). */
  endHold(): number {
    this.holdAudio = null;
    return this.heldFrames * FRAME_MS;
  }

  /**
   * The transfer's destination answered: the hold ends, the person there says `line` (on the call's
   * stream, as the call's audio), and the call lasts `talkSeconds` more. The agent is no longer
   * answered. Returns how long hold audio played (ms).
   */
  joinTransfer(line: string, talkSeconds: number): number {
    const held = this.endHold();
    this.transferred = true;
    this.agentAudio = [];
    if (this.hangupTimer) clearTimeout(this.hangupTimer);
    this.hangupTimer = setTimeout(() => this.hangUp(), talkSeconds * 1000);
    void synthesize(this.tts, [line], { sampleRate: 8000, voice: PERSON_VOICE })
      .then((speech) => {
        this.said.push(line);
        this.outgoing.push(speech);
      })
      .catch((error: unknown) => this.options.log?.warn({ err: error }, 'transferred-to person could not speak'));
    return held;
  }

  private begin(): void {
    this.send(this.frames.connected());
    this.send(this.frames.start());
    this.startedAt = Date.now();
    this.ticker = setInterval(() => this.tick(), FRAME_MS);
    this.hangupTimer = setTimeout(() => this.hangUp(), this.options.talkSeconds * 1000);
  }

  /** Sends the frames due by now (the timer drifts; the wall clock does not). */
  private tick(): void {
    const due = Math.floor((Date.now() - this.startedAt) / FRAME_MS);
    while (this.framesSent < due && this.socket.readyState === WebSocket.OPEN) {
      this.framesSent += 1;
      this.listenToHold();
      this.send(this.frames.media(Buffer.from(pcm16ToMulaw(this.nextFrame())).toString('base64')));
    }
    this.noticeAgentDone();
  }

  /** One frame of hold audio reaches the person's ear; only audible frames count as heard. */
  private listenToHold(): void {
    const hold = this.holdAudio;
    if (!hold) return;
    const frame = new Int16Array(FRAME);
    for (let i = 0; i < FRAME; i++) frame[i] = hold[(this.holdAt + i) % hold.length] ?? 0;
    this.holdAt = (this.holdAt + FRAME) % hold.length;
    if (rms(frame) > 0) this.heldFrames += 1;
  }

  private nextFrame(): Int16Array {
    const frame = new Int16Array(FRAME);
    let filled = 0;
    while (filled < FRAME && this.outgoing.length > 0) {
      const head = this.outgoing[0] as Int16Array;
      const used = Math.min(head.length, FRAME - filled);
      frame.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) this.outgoing.shift();
      else this.outgoing[0] = head.subarray(used);
    }
    return frame;
  }

  private receive(data: Buffer): void {
    let frame: { event?: string; media?: { payload?: string }; mark?: { name?: string } };
    try {
      frame = JSON.parse(data.toString('utf8')) as typeof frame;
    } catch {
      return;
    }
    if (frame.event === 'mark' && frame.mark?.name) {
      this.send(this.frames.mark(frame.mark.name));
    } else if (frame.event === 'media' && frame.media?.payload) {
      const samples = mulawToPcm16(Buffer.from(frame.media.payload, 'base64'));
      // On hold, or handed to someone else: the agent is not whom the person listens to.
      if (this.replying || this.transferred || this.holdAudio) return;
      this.agentAudio.push(samples);
      if (rms(samples) >= SPEECH_RMS) {
        this.agentSpoke = true;
        this.lastAgentVoice = Date.now();
      }
    }
  }

  /** The agent spoke and has been quiet for a while: the person answers. */
  private noticeAgentDone(): void {
    if (this.replying || !this.agentSpoke || Date.now() - this.lastAgentVoice < AGENT_DONE_MS) return;
    const utterance = this.agentAudio;
    this.agentAudio = [];
    this.agentSpoke = false;
    this.replying = true;
    void this.answer(utterance).finally(() => {
      this.replying = false;
    });
  }

  private async answer(utterance: Int16Array[]): Promise<void> {
    if (this.saidGoodbye) return;
    const all = new Int16Array(utterance.reduce((total, chunk) => total + chunk.length, 0));
    utterance.reduce((at, chunk) => (all.set(chunk, at), at + chunk.length), 0);
    try {
      const heard = (await recognize(this.stt, all, { sampleRate: 8000 })).map((part) => part.text).join(' ');
      this.heard.push(heard);
      if (this.options.machine) return;
      const reply = /\b(good ?bye|bye)\b/i.test(heard)
        ? GOODBYE
        : (REPLIES[Math.min(this.replies, REPLIES.length - 1)] ?? GOODBYE);
      this.replies += 1;
      this.saidGoodbye = reply === GOODBYE;
      const speech = await synthesize(this.tts, [reply], { sampleRate: 8000, voice: VOICE });
      this.said.push(reply);
      this.outgoing.push(speech);
      // Quiet while its own words play: the person does not listen to themselves.
      await new Promise((resolve) => setTimeout(resolve, (speech.length / 8000) * 1000));
    } catch (error) {
      this.options.log?.warn({ err: error }, 'simulated callee could not answer');
    }
  }

  private stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.hangupTimer) clearTimeout(this.hangupTimer);
  }

  private send(frame: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(frame);
  }
}

const rms = (samples: Int16Array): number => {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
};
