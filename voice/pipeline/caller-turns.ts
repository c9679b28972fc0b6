import type { SttStream, Transcript } from '../speech/stt';
import type { VadEvent } from '../vad';
import { soundsUnfinished, wordCount, type TurnSettings } from './turn-settings';

/** Audio kept from before the detector declares speech (it does so `startSeconds` in), so no first word is lost. */
const PREROLL_SAMPLES = 8000 * 0.6;
/** How long a final transcript may take after the end of speech before the turn goes on without it. */
export const STT_FINAL_TIMEOUT_MS = 5_000;

/** One thing the caller said: a turn for the agent to answer. */
export interface CallerTurn {
  text: string;
  /** Seconds into the call's stream (and recording) the caller started and stopped speaking. */
  start: number;
  end: number;
  /**
   * Wall clock (ms): the caller's last speech arrived (the end of speech); the detector declared it
   * and speech-to-text was asked for the final words; they arrived; the turn was taken.
   */
  endOfSpeechAt: number;
  finalizedAt: number;
  transcribedAt: number;
  completedAt: number;
  /** Silence the detector waited for before it declared the end of speech. */
  endpointingSeconds: number;
  /** How long the turn was then held open for an unfinished-sounding sentence (`turn_analyzer`). */
  heldMs: number;
}

export interface CallerTurnHandlers {
  /** The caller began to speak (or went on after a pause). */
  onSpeechStarted(): void;
  /** Words recognized so far in the current utterance (streaming recognizers only). */
  onWords(count: number): void;
  /** The caller made a sound that had no words in it: not a turn. */
  onNoise(): void;
  onTurn(turn: CallerTurn): void;
}

interface Utterance {
  start: number;
  /** Audio goes to speech-to-text while the caller speaks. */
  collecting: boolean;
  texts: string[];
  interim: string;
  /** Finalize requests not yet answered by a final transcript. */
  awaitingFinals: number;
  stoppedAt: { at: number; detectedAt: number; wall: number; finalizedAt: number } | null;
  transcribedAt: number | null;
  held: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * Turns the caller's audio into turns: the voice activity detector says when speech starts and
 * stops; only speech (with a short pre-roll) goes to speech-to-text, which is asked for its final
 * words at each stop; the turn is taken once the caller stopped and those words are in (the
 * `turn_stop_strategy` may hold an unfinished-sounding one open). Speech resumed before then
 * belongs to the same turn. Clock-driven (`now`) so that tests and the pipeline agree on time.
 */
export class CallerTurns {
  private preroll: Int16Array[] = [];
  private prerollSamples = 0;
  private utterance: Utterance | null = null;
  private closed = false;

  /**
   * `arrivedAt(position)`: the wall clock at which the stream reached a position, so that the end of
   * speech is dated when its audio arrived, not when the detector (which may lag under load) judged it.
   */
  constructor(
    private readonly stt: SttStream,
    private readonly settings: Pick<TurnSettings, 'stopStrategy' | 'smartTurnStopSeconds'> & { vadStopSeconds: number },
    private readonly handlers: CallerTurnHandlers,
    private readonly now: () => number = Date.now,
    private readonly arrivedAt: (position: number) => number = () => now(),
  ) {}

  /** The caller is in the middle of an utterance (speaking, or stopped and not yet a turn). */
  get active(): boolean {
    return this.utterance !== null;
  }

  /** Caller audio, PCM16 8 kHz, in stream order. */
  audio(samples: Int16Array): void {
    if (this.closed) return;
    if (this.utterance?.collecting) {
      this.stt.push(samples);
      return;
    }
    this.preroll.push(samples);
    this.prerollSamples += samples.length;
    while (this.prerollSamples - (this.preroll[0]?.length ?? 0) >= PREROLL_SAMPLES) {
      this.prerollSamples -= this.preroll.shift()?.length ?? 0;
    }
  }

  /** A detector event; `position` is the detector's place in the stream (seconds) when it decided. */
  vad(event: VadEvent, position: number): void {
    if (this.closed) return;
    if (event.type === 'start') {
      const utterance = (this.utterance ??= {
        start: event.at,
        collecting: false,
        texts: [],
        interim: '',
        awaitingFinals: 0,
        stoppedAt: null,
        transcribedAt: null,
        held: false,
        timer: null,
      });
      this.clearTimer(utterance);
      utterance.collecting = true;
      utterance.stoppedAt = null;
      utterance.held = false;
      for (const samples of this.preroll) this.stt.push(samples);
      this.preroll = [];
      this.prerollSamples = 0;
      this.handlers.onSpeechStarted();
      return;
    }
    const utterance = this.utterance;
    if (!utterance?.collecting) return;
    utterance.collecting = false;
    utterance.stoppedAt = {
      at: event.at,
      detectedAt: position,
      wall: this.arrivedAt(position),
      finalizedAt: this.now(),
    };
    utterance.awaitingFinals += 1;
    this.stt.finalize();
    this.arm(utterance, STT_FINAL_TIMEOUT_MS, () => {
      utterance.awaitingFinals = 0;
      this.complete();
    });
  }

  transcript(transcript: Transcript): void {
    const utterance = this.utterance;
    if (this.closed || !utterance) return;
    if (!transcript.isFinal) {
      utterance.interim = transcript.text;
      this.handlers.onWords(wordCount([...utterance.texts, utterance.interim].join(' ')));
      return;
    }
    utterance.interim = '';
    if (transcript.text.trim()) {
      utterance.texts.push(transcript.text.trim());
      this.handlers.onWords(wordCount(utterance.texts.join(' ')));
    }
    if (transcript.speechFinal && utterance.awaitingFinals > 0) {
      utterance.awaitingFinals -= 1;
      utterance.transcribedAt = this.now();
      this.complete();
    }
  }

  close(): void {
    this.closed = true;
    if (this.utterance) this.clearTimer(this.utterance);
  }

  private complete(): void {
    const utterance = this.utterance;
    if (!utterance?.stoppedAt || utterance.collecting || utterance.awaitingFinals > 0) return;
    this.clearTimer(utterance);
    const text = utterance.texts.join(' ').trim();
    if (!text) {
      this.utterance = null;
      this.handlers.onNoise();
      return;
    }
    const stopped = utterance.stoppedAt;
    if (this.settings.stopStrategy === 'turn_analyzer' && !utterance.held && soundsUnfinished(text)) {
      // The detector already waited vadStopSeconds of silence; hold the turn open for the rest.
      const holdMs =
        (this.settings.smartTurnStopSeconds - this.settings.vadStopSeconds) * 1000 - (this.now() - stopped.wall);
      if (holdMs > 0) {
        this.arm(utterance, holdMs, () => {
          utterance.held = true;
          this.complete();
        });
        return;
      }
    }
    this.utterance = null;
    const completedAt = this.now();
    this.handlers.onTurn({
      text,
      start: utterance.start,
      end: stopped.at,
      endOfSpeechAt: stopped.wall,
      finalizedAt: stopped.finalizedAt,
      transcribedAt: utterance.transcribedAt ?? completedAt,
      completedAt,
      endpointingSeconds: stopped.detectedAt - stopped.at,
      heldMs: utterance.held ? completedAt - (utterance.transcribedAt ?? stopped.wall) : 0,
    });
  }

  private arm(utterance: Utterance, ms: number, action: () => void): void {
    this.clearTimer(utterance);
    utterance.timer = setTimeout(action, ms);
  }

  private clearTimer(utterance: Utterance): void {
    if (utterance.timer) clearTimeout(utterance.timer);
    utterance.timer = null;
  }
}
