import type { TranscriptLine } from '../../agent-runtime/contract';
import type { AgentReply, EndedBy, Spoken } from '../../agent-runtime/party';
import type { Logger } from '../../platform/logger';
import type { Playout } from '../playout';
import type { TextToSpeech, TtsOptions, TtsStream } from '../speech/tts';
import { transcriptSeconds } from './transcript-seconds';
import type { ReplyMarks } from './turn-latency';

/** What a reply needs of the live call it is spoken on. */
export interface ReplyHost {
  readonly playback: Playout;
  readonly speech: { tts: TextToSpeech; options: TtsOptions; log: Logger };
  nowMs(): number;
  /** Wall clock of a position in the stream. */
  wallAt(seconds: number): string;
  emit(type: 'interrupted' | 'reply', text?: string): void;
  firstAudioSent(reply: LiveReply): void;
  replySettled(reply: LiveReply): void;
}

/**
 * One agent reply on a live call: sentences go to text-to-speech as they come (one stream per
 * reply), its audio to the playout; it is done once the last sentence has been synthesized and
 * played, or when the caller interrupts or the call ends. The stream opens when the language model
 * is asked (or with the first sentence of a reply that asks none), so the provider's handshake
 * happens while the model thinks instead of after its first sentence.
 */
export class LiveReply implements AgentReply {
  readonly streaming = true;
  readonly marks: ReplyMarks = {};
  private readonly texts: string[] = [];
  private stream: TtsStream | null = null;
  private opening = false;
  private noMoreText = false;
  private synthesized = false;
  private settled = false;
  private interrupted = false;
  private startedAt: number | null = null;
  private resolve: (spoken: Spoken) => void = () => undefined;
  private readonly outcome = new Promise<Spoken>((resolve) => (this.resolve = resolve));

  constructor(
    private readonly party: ReplyHost,
    readonly interruptible: boolean,
  ) {}

  /** Still speaking, or about to. */
  get active(): boolean {
    return !this.settled;
  }

  requestSent(): void {
    this.marks.requestSent ??= this.party.nowMs();
    if (!this.stream && !this.opening && !this.settled) this.open();
  }

  firstToken(): void {
    this.marks.firstToken ??= this.party.nowMs();
  }

  sentence(text: string): void {
    if (this.settled || this.noMoreText || !text.trim()) return;
    this.texts.push(text.trim());
    this.marks.firstSentence ??= this.party.nowMs();
    if (this.stream) this.stream.speak(text.trim());
    else if (!this.opening) this.open();
  }

  finish(): Promise<Spoken> {
    this.noMoreText = true;
    if (this.texts.length === 0) {
      // Nothing to say (the model only called a function): a stream opened ahead goes unused.
      this.synthesized = true;
      this.stream?.cancel();
    } else this.stream?.end();
    this.whenPlayed();
    return this.outcome;
  }

  /** Opened ahead of any sentence and lost before one came (a provider's idle timeout): the first sentence opens another. */
  private lostAhead(): boolean {
    if (this.texts.length > 0 || this.noMoreText || this.settled) return false;
    this.stream = null;
    this.opening = false;
    return true;
  }

  /** The caller spoke over the agent: drop what has not been played, tell the provider. */
  interrupt(): void {
    if (this.settled) return;
    this.interrupted = true;
    this.stream?.cancel();
    this.party.playback.clear();
    this.party.emit('interrupted');
    this.settle();
  }

  /** The call is over. */
  cut(reason: EndedBy): void {
    if (this.settled) return;
    this.stream?.cancel();
    this.settle(reason);
  }

  private open(): void {
    this.opening = true;
    const { tts, options, log } = this.party.speech;
    tts
      .open(options, {
        onAudio: (samples) => this.audio(samples),
        onDone: () => {
          this.synthesized = true;
          this.whenPlayed();
        },
        onError: (error) => {
          if (this.lostAhead()) return log.warn({ err: error }, 'text-to-speech closed before the first sentence');
          log.error({ err: error }, 'text-to-speech failed');
          this.synthesized = true;
          this.whenPlayed();
        },
      })
      .then(
        (stream) => {
          if (this.settled || (this.noMoreText && this.texts.length === 0)) {
            stream.cancel();
            return;
          }
          this.stream = stream;
          for (const text of this.texts) stream.speak(text);
          if (this.noMoreText) stream.end();
        },
        (error: unknown) => {
          if (this.lostAhead()) return log.warn({ err: error }, 'text-to-speech could not be opened ahead');
          log.error({ err: error }, 'text-to-speech could not be opened');
          this.synthesized = true;
          this.whenPlayed();
        },
      );
  }

  private audio(samples: Int16Array): void {
    if (this.settled) return;
    const first = this.marks.firstAudio === undefined;
    this.marks.firstAudio ??= this.party.nowMs();
    this.party.playback.enqueue(
      samples,
      first
        ? () => {
            this.startedAt = this.party.playback.seconds;
            this.party.firstAudioSent(this);
          }
        : undefined,
    );
  }

  private whenPlayed(): void {
    if (!this.noMoreText || !this.synthesized || this.settled) return;
    void this.party.playback.drained().then(() => this.settle());
  }

  private settle(over?: EndedBy): void {
    if (this.settled) return;
    this.settled = true;
    this.party.replySettled(this);
    const text = this.texts.join(' ');
    const start = this.startedAt ?? this.party.playback.seconds;
    const line: TranscriptLine | null = text
      ? {
          at: this.party.wallAt(start),
          role: 'assistant',
          text,
          start: transcriptSeconds(start),
          end: transcriptSeconds(this.party.playback.seconds),
        }
      : null;
    if (line) this.party.emit('reply', text);
    this.resolve({ line, ...(this.interrupted ? { interrupted: true } : {}), ...(over ? { over } : {}) });
  }
}
