import OpenAI from 'openai';
import { SpeechProviderError } from './errors';
import { PcmChunker } from './pcm-chunks';
import { RationalResampler } from '../rational-resample';
import type { TextToSpeech, TtsHandlers, TtsOptions, TtsStream } from './tts';

const PROVIDER = 'openai';

export interface OpenAiSpeechSettings {
  apiKey: string;
  /** Unset: OpenAI's own endpoint (the LLM_* settings). */
  baseUrl?: string;
  ttsModel?: string;
  defaultVoice?: string;
}

/** Builds the client the same way for speech and transcription: no retries (a call cannot wait). */
export const openAiClient = (settings: OpenAiSpeechSettings): OpenAI =>
  new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, maxRetries: 0, timeout: 15_000 });

/**
 * OpenAI `audio.speech.create` with `response_format: 'pcm'` (24 kHz PCM16), one request per sentence,
 * run one after another so audio stays in order; the body is read as it streams and resampled.
 */
export class OpenAiTts implements TextToSpeech {
  readonly provider = PROVIDER;
  private readonly client: OpenAI;

  constructor(private readonly settings: OpenAiSpeechSettings) {
    this.client = openAiClient(settings);
  }

  open(options: TtsOptions, handlers: TtsHandlers): Promise<TtsStream> {
    return Promise.resolve(
      new OpenAiStream(this.client, {
        model: this.settings.ttsModel ?? 'gpt-4o-mini-tts',
        voice: options.voice ?? this.settings.defaultVoice ?? 'alloy',
        // OpenAI's `pcm` format is 24 kHz.
        resampler: new RationalResampler(24_000, options.sampleRate),
        handlers,
      }),
    );
  }
}

interface StreamSetup {
  model: string;
  voice: string;
  resampler: RationalResampler;
  handlers: TtsHandlers;
}

class OpenAiStream implements TtsStream {
  private readonly abort = new AbortController();
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly client: OpenAI,
    private readonly setup: StreamSetup,
  ) {}

  speak(text: string): void {
    if (!text.trim()) return;
    this.chain = this.chain.then(() => this.synthesize(text));
  }

  end(): void {
    this.chain = this.chain.then(() => {
      if (!this.stopped) this.setup.handlers.onDone?.();
    });
  }

  cancel(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async synthesize(text: string): Promise<void> {
    if (this.stopped) return;
    const { handlers, resampler } = this.setup;
    try {
      const response = await this.client.audio.speech.create(
        { model: this.setup.model, voice: this.setup.voice, input: text, response_format: 'pcm' },
        { signal: this.abort.signal },
      );
      const pcm = new PcmChunker();
      for await (const bytes of response.body ?? []) {
        if (this.stopped) return;
        const samples = resampler.process(pcm.push(Buffer.from(bytes as Uint8Array)));
        if (samples.length > 0) handlers.onAudio(samples);
      }
    } catch (error) {
      if (this.stopped) return;
      this.stopped = true;
      handlers.onError?.(toSpeechError(error));
    }
  }
}

/** OpenAI SDK errors carry the HTTP status; 401/403 mean the key was refused. */
export function toSpeechError(error: unknown): SpeechProviderError {
  if (error instanceof OpenAI.APIError) {
    const status: number = typeof error.status === 'number' ? error.status : 0;
    const kind = status === 401 || status === 403 ? 'auth' : 'connection';
    return new SpeechProviderError(PROVIDER, kind, `HTTP ${status}: ${error.message}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SpeechProviderError(PROVIDER, 'connection', message, { cause: error });
}
