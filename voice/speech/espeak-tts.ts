import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { RationalResampler } from '../rational-resample';
import { WAV_HEADER_BYTES, parseWavHeader } from '../wav';
import { SpeechProviderError } from './errors';
import { PcmChunker } from './pcm-chunks';
import type { TextToSpeech, TtsHandlers, TtsOptions, TtsStream } from './tts';

export interface EspeakSettings {
  /** The executable; default `espeak-ng` from PATH (`npm run speech:tools` installs it). */
  command?: string;
  /** Unset in the agent's options: this, else `en-us`. */
  defaultVoice?: string;
  /** Words per minute (`-s`); espeak-ng's default is 175. */
  wordsPerMinute?: number;
}

type Espeak = ChildProcessByStdio<Writable, Readable, Readable>;

const PROVIDER = 'espeak';

/**
 * espeak-ng as text-to-speech, offline: one `espeak-ng --stdout` per sentence, in order. It
 * writes a WAV (22050 Hz mono PCM16 on bookworm; the header is read, not assumed) whose sizes
 * are placeholders because it streams, so the data after the 44-byte header is taken as it comes,
 * resampled to the call's rate. Text goes through stdin so no sentence can look like an option.
 */
export class EspeakTts implements TextToSpeech {
  readonly provider = PROVIDER;
  /** Voices espeak-ng accepted once; checked at open so a typo fails the reply, not mid-call. */
  private readonly knownVoices = new Set<string>();

  constructor(private readonly settings: EspeakSettings = {}) {}

  async open(options: TtsOptions, handlers: TtsHandlers): Promise<TtsStream> {
    const voice = options.voice ?? this.settings.defaultVoice ?? 'en-us';
    await this.checkVoice(voice);
    const baseArgs = ['--stdout', '-v', voice, '--stdin'];
    if (this.settings.wordsPerMinute) baseArgs.push('-s', String(this.settings.wordsPerMinute));

    const queue: string[] = [];
    let ended = false;
    let stopped = false;
    let current: Espeak | null = null;
    let resampler: RationalResampler | null = null;

    const fail = (error: SpeechProviderError) => {
      if (stopped) return;
      stopped = true;
      current?.kill('SIGKILL');
      handlers.onError?.(error);
    };

    const next = () => {
      if (stopped || current) return;
      const text = queue.shift();
      if (text === undefined) {
        if (ended) {
          stopped = true;
          const tail = resampler?.flush();
          if (tail?.length) handlers.onAudio(tail);
          handlers.onDone?.();
        }
        return;
      }
      const child = spawn(this.settings.command ?? 'espeak-ng', baseArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
      current = child;
      let header: Buffer | null = Buffer.alloc(0);
      const chunker = new PcmChunker();
      let stderr = '';
      child.stdout.on('data', (bytes: Buffer) => {
        if (stopped || current !== child) return;
        let data = bytes;
        if (header) {
          header = Buffer.concat([header, bytes]);
          if (header.length < WAV_HEADER_BYTES) return;
          const format = parseWavHeader(header);
          if (!format || format.channels !== 1 || format.bitsPerSample !== 16) {
            fail(new SpeechProviderError(PROVIDER, 'protocol', 'espeak-ng did not write mono 16-bit WAV'));
            return;
          }
          if (resampler && resampler.inRate !== format.sampleRate) {
            fail(new SpeechProviderError(PROVIDER, 'protocol', 'espeak-ng changed its sample rate mid-reply'));
            return;
          }
          resampler ??= new RationalResampler(format.sampleRate, options.sampleRate);
          data = header.subarray(WAV_HEADER_BYTES);
          header = null;
        }
        const samples = resampler?.process(chunker.push(data));
        if (samples?.length) handlers.onAudio(samples);
      });
      child.stderr.on('data', (bytes: Buffer) => (stderr += bytes.toString()));
      child.on('error', (error) =>
        fail(
          new SpeechProviderError(PROVIDER, 'configuration', `cannot run espeak-ng: ${error.message}`, {
            cause: error,
          }),
        ),
      );
      child.on('close', (code) => {
        if (current !== child) return;
        current = null;
        if (code !== 0) {
          fail(new SpeechProviderError(PROVIDER, 'protocol', `espeak-ng exited with ${code}: ${stderr.trim()}`));
          return;
        }
        next();
      });
      // EPIPE when espeak-ng dies first is reported through 'close'.
      child.stdin.on('error', () => undefined);
      child.stdin.end(text);
    };

    return {
      speak(text) {
        if (ended || stopped || !text.trim()) return;
        queue.push(text);
        next();
      },
      end() {
        ended = true;
        next();
      },
      cancel() {
        stopped = true;
        queue.length = 0;
        current?.kill('SIGKILL');
        current = null;
      },
    };
  }

  private async checkVoice(voice: string): Promise<void> {
    if (this.knownVoices.has(voice)) return;
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      // -q: no audio, only voice loading.
      const child = spawn(this.settings.command ?? 'espeak-ng', ['-q', '-v', voice, ''], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (bytes: Buffer) => (err += bytes.toString()));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, stderr: err }));
    }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new SpeechProviderError(
        PROVIDER,
        'configuration',
        `cannot run espeak-ng (${message}); \`npm run speech:tools\` installs it`,
        { cause: error },
      );
    });
    if (code !== 0) {
      throw new SpeechProviderError(PROVIDER, 'configuration', `unknown voice "${voice}": ${stderr.trim()}`);
    }
    this.knownVoices.add(voice);
  }
}
