import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { SpeechProviderError, isAuthStatus } from './errors';
import { PcmChunker } from './pcm-chunks';
import type { TextToSpeech, TtsHandlers, TtsOptions, TtsStream } from './tts';
import { closeError, openProviderSocket } from './ws-open';

const PROVIDER = 'cartesia';
/** The API version this adapter speaks (sent as `Cartesia-Version`). */
export const CARTESIA_VERSION = '2025-04-16';

export interface CartesiaTtsSettings {
  apiKey: string;
  /** `wss://api.cartesia.ai`. */
  baseUrl: string;
  defaultVoice: string;
  model?: string;
}

interface ServerMessage {
  type?: string;
  data?: string;
  done?: boolean;
  context_id?: string;
  status_code?: number;
  error?: string;
  message?: string;
  title?: string;
}

/**
 * Cartesia `/tts/websocket`: one socket and one `context_id` per reply; each sentence is a
 * generation request with `continue: true` (prosody carries over), an empty transcript with
 * `continue: false` ends the context, `chunk` messages carry base64 raw pcm_s16le, `done` ends it.
 * Spoken with `ws`: the official SDK (4.2.0) forces `wss:`, so it cannot reach a plain local server.
 */
export class CartesiaTts implements TextToSpeech {
  readonly provider = PROVIDER;

  constructor(private readonly settings: CartesiaTtsSettings) {}

  async open(options: TtsOptions, handlers: TtsHandlers): Promise<TtsStream> {
    const base = this.settings.baseUrl.replace(/\/+$/, '');
    const socket = await openProviderSocket(PROVIDER, `${base}/tts/websocket`, {
      'X-API-Key': this.settings.apiKey,
      'Cartesia-Version': CARTESIA_VERSION,
    });
    const request = {
      model_id: this.settings.model ?? 'sonic-2',
      voice: { mode: 'id', id: options.voice ?? this.settings.defaultVoice },
      language: options.language ?? 'en',
      context_id: randomUUID(),
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: options.sampleRate },
    };
    return new CartesiaStream(socket, request, handlers);
  }
}

class CartesiaStream implements TtsStream {
  private readonly pcm = new PcmChunker();
  private stopped = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly request: { context_id: string } & Record<string, unknown>,
    private readonly handlers: TtsHandlers,
  ) {
    socket.on('message', (data) => this.received(data as Buffer));
    socket.on('close', (code, reason) => {
      if (this.stopped) return;
      this.stopped = true;
      handlers.onError?.(
        closeError(PROVIDER, code, reason.toString()) ??
          new SpeechProviderError(PROVIDER, 'protocol', 'socket closed before `done`'),
      );
    });
  }

  speak(text: string): void {
    if (text.trim()) this.send({ ...this.request, transcript: text.endsWith(' ') ? text : `${text} `, continue: true });
  }

  end(): void {
    this.send({ ...this.request, transcript: '', continue: false });
  }

  cancel(): void {
    if (this.stopped) return;
    // Tell Cartesia to stop generating, then drop the socket so nothing more reaches us.
    this.send({ context_id: this.request.context_id, cancel: true });
    this.stopped = true;
    this.socket.close(1000);
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
      return this.finish(new SpeechProviderError(PROVIDER, 'protocol', 'non-JSON message'));
    }
    if (message.context_id !== undefined && message.context_id !== this.request.context_id) return;
    if (message.type === 'error') {
      const status = message.status_code ?? 0;
      const text = message.error ?? message.message ?? message.title ?? `status ${status}`;
      return this.finish(new SpeechProviderError(PROVIDER, isAuthStatus(status) ? 'auth' : 'protocol', text));
    }
    if (message.type === 'chunk' && message.data) {
      const samples = this.pcm.push(Buffer.from(message.data, 'base64'));
      if (samples.length > 0) this.handlers.onAudio(samples);
    }
    if (message.type === 'done') this.finish(null);
  }

  private finish(error: SpeechProviderError | null): void {
    this.stopped = true;
    this.socket.close(1000);
    if (error) this.handlers.onError?.(error);
    else this.handlers.onDone?.();
  }
}
