import type WebSocket from 'ws';
import { SpeechProviderError } from './errors';
import { PcmChunker } from './pcm-chunks';
import type { TextToSpeech, TtsHandlers, TtsOptions, TtsStream } from './tts';
import { closeError, openProviderSocket } from './ws-open';

const PROVIDER = 'elevenlabs';

export interface ElevenLabsTtsSettings {
  apiKey: string;
  /** `wss://api.elevenlabs.io`. */
  baseUrl: string;
  /** Used when the agent names no voice. */
  defaultVoice: string;
  model?: string;
}

interface ServerMessage {
  audio?: string | null;
  isFinal?: boolean | null;
  error?: string;
  message?: string;
}

/**
 * ElevenLabs input streaming (`/v1/text-to-speech/{voice}/stream-input`), one socket per reply: the
 * first message carries voice settings and `xi_api_key`, each sentence is sent with `flush` so it is
 * spoken at once, `{text: ""}` ends the input, and audio comes back base64 in `audio` until `isFinal`.
 * Spoken with `ws`: the official Node SDK (2.73.0) has no client for this socket.
 */
export class ElevenLabsTts implements TextToSpeech {
  readonly provider = PROVIDER;

  constructor(private readonly settings: ElevenLabsTtsSettings) {}

  async open(options: TtsOptions, handlers: TtsHandlers): Promise<TtsStream> {
    const voice = encodeURIComponent(options.voice ?? this.settings.defaultVoice);
    const query = new URLSearchParams({
      model_id: this.settings.model ?? 'eleven_flash_v2_5',
      output_format: `pcm_${options.sampleRate}`,
    });
    if (options.language) query.set('language_code', options.language);
    const base = this.settings.baseUrl.replace(/\/+$/, '');
    const socket = await openProviderSocket(
      PROVIDER,
      `${base}/v1/text-to-speech/${voice}/stream-input?${query.toString()}`,
    );
    return new ElevenLabsStream(socket, this.settings.apiKey, handlers);
  }
}

class ElevenLabsStream implements TtsStream {
  private readonly pcm = new PcmChunker();
  private stopped = false;

  constructor(
    private readonly socket: WebSocket,
    apiKey: string,
    private readonly handlers: TtsHandlers,
  ) {
    // A single space opens the input stream (the documented "initialize connection" message).
    this.send({ text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8 }, xi_api_key: apiKey });
    socket.on('message', (data) => this.received(data as Buffer));
    socket.on('close', (code, reason) => {
      if (this.stopped) return;
      this.stopped = true;
      const error = closeError(PROVIDER, code, reason.toString());
      if (error) handlers.onError?.(error);
    });
  }

  speak(text: string): void {
    // ElevenLabs wants each chunk to end with a space; `flush` generates it without waiting for more text.
    if (text.trim()) this.send({ text: text.endsWith(' ') ? text : `${text} `, flush: true });
  }

  end(): void {
    this.send({ text: '' });
  }

  cancel(): void {
    this.stopped = true;
    this.socket.terminate();
  }

  private send(message: object): void {
    if (!this.stopped && this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private received(data: Buffer): void {
    if (this.stopped) return;
    let message: ServerMessage;
    try {
      message = JSON.parse(data.toString()) as ServerMessage;
    } catch {
      return this.fail(new SpeechProviderError(PROVIDER, 'protocol', 'non-JSON message'));
    }
    if (message.error) {
      const kind = /auth|api[_ ]key|unauthori[sz]ed/i.test(`${message.error} ${message.message ?? ''}`)
        ? 'auth'
        : 'protocol';
      return this.fail(new SpeechProviderError(PROVIDER, kind, message.message ?? message.error));
    }
    if (message.audio) {
      const samples = this.pcm.push(Buffer.from(message.audio, 'base64'));
      if (samples.length > 0) this.handlers.onAudio(samples);
    }
    if (message.isFinal) {
      this.stopped = true;
      this.socket.close(1000);
      this.handlers.onDone?.();
    }
  }

  private fail(error: SpeechProviderError): void {
    this.stopped = true;
    this.socket.terminate();
    this.handlers.onError?.(error);
  }
}
