import type { TranscriptLine, TurnLatency } from '../../agent-runtime/contract';
import type { AgentReply, ConversationParty, EndedBy, ReplyOptions, Spoken } from '../../agent-runtime/party';
import type { Logger } from '../../platform/logger';
import type { MediaSession } from '../media-session';
import { Playout } from '../playout';
import type { SttHandlers, SttStream } from '../speech/stt';
import type { TextToSpeech, TtsOptions } from '../speech/tts';
import { VoiceActivityDetector, type VadSettings } from '../vad';
import { CallerTurns, type CallerTurn } from './caller-turns';
import { LiveReply } from './live-reply';
import { transcriptSeconds } from './transcript-seconds';
import { turnLatency } from './turn-latency';
import { wordCount, type TurnSettings } from './turn-settings';

export interface LivePartyDeps {
  session: MediaSession;
  tts: TextToSpeech;
  ttsOptions: TtsOptions;
  /** Opens the call's speech-to-text stream with the party's handlers. */
  openStt(handlers: SttHandlers): Promise<SttStream>;
  settings: TurnSettings;
  vad?: Partial<VadSettings>;
  log: Logger;
  /** Each answered turn's latency, as soon as the agent's first audio for it is sent. */
  onLatency?(latency: TurnLatency): void;
  /** What happens on the call, as it happens (logs, tests). */
  onEvent?(event: VoiceEvent): void;
  now?: () => number;
}

/**
 * A moment of a live call: `at` is the wall clock (ms). A `turn` carries what the caller said, a
 * `reply` what the agent said (once it has been played, or cut).
 */
export interface VoiceEvent {
  type: 'speech_started' | 'interrupted' | 'turn' | 'reply';
  at: number;
  text?: string;
}

/** Idle checks in a row after which the caller is taken to have gone ('user_idle'). */
const IDLE_CHECKS = 2;

/**
 * A person on a live call, as the conversation engine's party. Caller audio from the media
 * session goes through voice activity detection and speech-to-text into turns (`CallerTurns`);
 * the agent's replies go through text-to-speech into the session, paced by the caller stream
 * (`Playout`). Barge-in follows the node's `allow_interrupt` and the `turn_start_strategy`;
 * silence after the agent spoke is checked after `max_user_idle_timeout`; `max_call_duration`
 * and the stream ending close the call. Times in the transcript are the recording's.
 */
export class LiveParty implements ConversationParty {
  readonly latencies: TurnLatency[] = [];
  private readonly clock: () => number;
  private readonly openedAt: number;
  private playout!: Playout;
  /** Wall clock at the stream's (and recording's) position 0. */
  private streamEpoch = 0;
  /** Where the stream was when the detector heard its first sample. */
  private vadOffset = 0;
  private vad!: VoiceActivityDetector;
  private stt!: SttStream;
  private turns!: CallerTurns;
  private ended: EndedBy | undefined;
  private current: LiveReply | null = null;
  private heardTurns: CallerTurn[] = [];
  private listener: ((spoken: Spoken) => void) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private idleChecks = 0;
  private provisionalTimer: NodeJS.Timeout | null = null;
  private maxTimer: NodeJS.Timeout | null = null;
  /** The last turn the agent answered, until its answer's first audio is measured. */
  private unansweredTurn: CallerTurn | null = null;
  private turnCount = 0;
  private readonly arrivals = new ArrivalTimes();
  /** Stops hearing the stream: it outlives a conversation that stopped for a transfer. */
  private stopListening: () => void = () => undefined;

  private constructor(private readonly deps: LivePartyDeps) {
    this.clock = deps.now ?? Date.now;
    this.openedAt = this.clock();
  }

  static async open(deps: LivePartyDeps): Promise<LiveParty> {
    const party = new LiveParty(deps);
    await party.attach();
    return party;
  }

  private async attach(): Promise<void> {
    const { deps } = this;
    const vadSettings = deps.vad ?? {};
    this.vad = await VoiceActivityDetector.create(
      {
        // The detector counts from the first sample it heard; turns speak in stream positions.
        onEvent: (event) =>
          this.turns.vad({ ...event, at: event.at + this.vadOffset }, this.vad.position + this.vadOffset),
        onError: (error) => deps.log.error({ err: error }, 'voice activity detection failed'),
      },
      vadSettings,
    );
    this.stt = await deps.openStt({
      onTranscript: (transcript) => this.turns.transcript(transcript),
      onError: (error) => deps.log.error({ err: error }, 'speech-to-text failed'),
    });
    this.turns = new CallerTurns(
      this.stt,
      {
        stopStrategy: deps.settings.stopStrategy,
        smartTurnStopSeconds: deps.settings.smartTurnStopSeconds,
        vadStopSeconds: vadSettings.stopSeconds ?? 0.8,
      },
      {
        onSpeechStarted: () => this.speechStarted(),
        onWords: (count) => this.wordsHeard(count),
        onNoise: () => this.noiseOnly(),
        onTurn: (turn) => this.turnTaken(turn),
      },
      this.clock,
      (position) => this.arrivals.wallAt(position),
    );
    // From here on every caller sample reaches the playout clock, the detector and the turns.
    const heard = deps.session.callerSamples;
    this.playout = new Playout(deps.session, undefined, heard);
    this.vadOffset = heard / 8000;
    this.streamEpoch = this.clock() - this.vadOffset * 1000;
    this.stopListening = deps.session.listen({
      onCallerAudio: (samples) => {
        this.playout.tick(samples.length);
        this.arrivals.arrived(this.playout.seconds, this.clock());
        this.turns.audio(samples);
        this.vad.push(samples);
      },
      // A message played after the conversation ended is cut too: nobody is left to hear it.
      onEnd: () => {
        this.current?.cut('callee_hangup');
        this.end('callee_hangup');
      },
    });
    if (deps.session.isEnded) this.end('callee_hangup');
    this.maxTimer = setTimeout(() => this.end('max_duration'), deps.settings.maxCallSeconds * 1000);
  }

  // ConversationParty

  now(): Date {
    return new Date(this.nowMs());
  }

  over(): EndedBy | undefined {
    return this.ended;
  }

  reply(options: ReplyOptions): AgentReply {
    const reply = new LiveReply(this, options.interruptible);
    // A reply the engine started before it saw the call end (a language model still answering) says nothing.
    if (this.ended) reply.cut(this.ended);
    else this.current = reply;
    return reply;
  }

  listen(): Promise<Spoken> {
    if (this.ended) return Promise.resolve({ line: null, over: this.ended });
    const waiting = this.takeTurns();
    if (waiting) return Promise.resolve(waiting);
    return new Promise((resolve) => {
      this.listener = resolve;
      this.armIdle();
    });
  }

  durationSeconds(): number {
    return Math.round((this.nowMs() - this.openedAt) / 1000);
  }

  /**
   * A machine answered: the conversation ends (`voicemail`), what the agent was saying is cleared,
   * and `text` is spoken to its end, whatever the other side plays. Resolves with its transcript
   * line once it has been played, or null when the stream ended first or no audio of it went out.
   */
  async leaveMessage(text: string): Promise<TranscriptLine | null> {
    this.end('voicemail');
    this.playout.clear();
    if (this.deps.session.isEnded) return null;
    const message = new LiveReply(this, false);
    this.current = message;
    message.sentence(text);
    const spoken = await message.finish();
    return spoken.over || message.marks.firstAudio === undefined ? null : spoken.line;
  }

  /** Stops listening and speaking; the stream itself is the provider's to close. */
  async close(): Promise<void> {
    this.end(this.ended ?? 'callee_hangup');
    this.stopListening();
    this.vad.close();
    this.turns.close();
    await this.stt.close().catch((error: unknown) => this.deps.log.warn({ err: error }, 'speech-to-text close failed'));
  }

  // For replies.

  nowMs(): number {
    return this.clock();
  }

  get playback(): Playout {
    return this.playout;
  }

  get speech(): { tts: TextToSpeech; options: TtsOptions; log: Logger } {
    return { tts: this.deps.tts, options: this.deps.ttsOptions, log: this.deps.log };
  }

  /** Wall clock of a position in the stream. */
  wallAt(seconds: number): string {
    return new Date(this.streamEpoch + seconds * 1000).toISOString();
  }

  replySettled(reply: LiveReply): void {
    if (this.current === reply) this.current = null;
    // A hold for a possible interruption ends with the reply it held.
    this.clearProvisional();
    this.playout.resume();
  }

  /** A reply's first audio went out: the turn it answers is measured. */
  firstAudioSent(reply: LiveReply): void {
    const turn = this.unansweredTurn;
    if (!turn) return;
    this.unansweredTurn = null;
    this.turnCount += 1;
    const latency = turnLatency(this.turnCount, turn, reply.marks, this.clock());
    this.latencies.push(latency);
    this.deps.onLatency?.(latency);
  }

  // Caller events.

  emit(type: VoiceEvent['type'], text?: string): void {
    this.deps.onEvent?.({ type, at: this.clock(), ...(text === undefined ? {} : { text }) });
  }

  private speechStarted(): void {
    this.emit('speech_started');
    this.clearIdle();
    const reply = this.interruptibleReply();
    if (!reply) return;
    if (this.deps.settings.startStrategy === 'default') reply.interrupt();
    else if (this.deps.settings.startStrategy === 'provisional_vad') {
      // Hold the agent's audio: words soon make it an interruption, silence lets the agent go on.
      this.playout.pause();
      this.clearProvisional();
      this.provisionalTimer = setTimeout(
        () => this.playout.resume(),
        this.deps.settings.provisionalPauseSeconds * 1000,
      );
    }
  }

  private wordsHeard(count: number): void {
    const reply = this.interruptibleReply();
    if (!reply) return;
    const { startStrategy, minWords } = this.deps.settings;
    if ((startStrategy === 'min_words' && count >= minWords) || (startStrategy === 'provisional_vad' && count > 0)) {
      reply.interrupt();
    }
  }

  private noiseOnly(): void {
    this.clearProvisional();
    this.playout.resume();
    if (this.listener) this.armIdle();
  }

  private turnTaken(turn: CallerTurn): void {
    this.emit('turn', turn.text);
    const reply = this.current?.active ? this.current : null;
    if (reply?.interruptible) {
      // Under min_words, a few words over the agent are a backchannel ("uh-huh"), not a turn.
      if (this.deps.settings.startStrategy === 'min_words' && wordCount(turn.text) < this.deps.settings.minWords) {
        return;
      }
      reply.interrupt();
    }
    // Over a reply that may not be interrupted, the turn waits until the agent has finished.
    this.idleChecks = 0;
    this.heardTurns.push(turn);
    const listener = this.listener;
    const spoken = listener ? this.takeTurns() : null;
    if (listener && spoken) {
      this.listener = null;
      this.clearIdle();
      listener(spoken);
    }
  }

  /** Everything heard since the agent last listened, as one line. */
  private takeTurns(): Spoken | null {
    const turns = this.heardTurns.splice(0);
    const first = turns[0];
    const last = turns.at(-1);
    if (!first || !last) return null;
    this.unansweredTurn = last;
    const line: TranscriptLine = {
      at: this.wallAt(first.start),
      role: 'user',
      text: turns.map((turn) => turn.text).join(' '),
      start: transcriptSeconds(first.start),
      end: transcriptSeconds(last.end),
    };
    return { line };
  }

  private interruptibleReply(): LiveReply | null {
    const reply = this.current;
    return reply?.active && reply.interruptible ? reply : null;
  }

  private armIdle(): void {
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const listener = this.listener;
      if (!listener || this.turns.active) return;
      this.idleChecks += 1;
      if (this.idleChecks >= IDLE_CHECKS) {
        this.end('user_idle');
        return;
      }
      this.listener = null;
      listener({ line: null, idle: true });
    }, this.deps.settings.idleSeconds * 1000);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private clearProvisional(): void {
    if (this.provisionalTimer) clearTimeout(this.provisionalTimer);
    this.provisionalTimer = null;
  }

  private end(reason: EndedBy): void {
    if (this.ended) return;
    this.ended = reason;
    if (this.maxTimer) clearTimeout(this.maxTimer);
    this.clearIdle();
    this.clearProvisional();
    this.current?.cut(reason);
    const listener = this.listener;
    this.listener = null;
    listener?.({ line: null, over: reason });
  }
}

/** When each recent stretch of the caller stream arrived (the last 10 to 20 s), by its end position in seconds. */
class ArrivalTimes {
  private ends: number[] = [];
  private walls: number[] = [];

  arrived(end: number, wall: number): void {
    this.ends.push(end);
    this.walls.push(wall);
    if (this.ends.length > 1000) {
      this.ends = this.ends.slice(500);
      this.walls = this.walls.slice(500);
    }
  }

  /** The wall clock at which the stream reached `position` (the oldest known, for older positions). */
  wallAt(position: number): number {
    for (let i = this.ends.length - 1; i > 0; i--) {
      if ((this.ends[i - 1] ?? 0) < position) return this.walls[i] ?? Date.now();
    }
    return this.walls[0] ?? Date.now();
  }
}
