import { DeepgramClient } from '@deepgram/sdk';
import { joinChunks } from './utterance-stream';
import { SpeechProviderError, isAuthStatus } from './errors';
import { pcm16ToBytes } from '../codecs';
import type { SpeechToText, SttHandlers, SttOptions, SttStream } from './stt';

const PROVIDER = 'deepgram';
/** Deepgram closes a stream after 10 s without audio or KeepAlive. */
const KEEPALIVE_MS = 5_000;
const CLOSE_WAIT_MS = 3_000;
/** `WebSocket.OPEN`: the SDK's socket reports the standard ready states. */
const WEBSOCKET_OPEN = 1;

export interface DeepgramSttSettings {
  apiKey: string;
  /** `https://api.deepgram.com`; the WebSocket origin is derived from it (https -> wss). */
  baseUrl: string;
  model?: string;
  /** Idle time before a KeepAlive; tests shorten it. */
  keepAliveMs?: number;
}

/** Deepgram live transcription (`/v1/listen`) through the official SDK, linear16 mono. */
export class DeepgramStt implements SpeechToText {
  readonly provider = PROVIDER;
  private readonly client: DeepgramClient;

  constructor(private readonly settings: DeepgramSttSettings) {
    const base = settings.baseUrl.replace(/\/+$/, '');
    const wsBase = base.replace(/^http/, 'ws');
    this.client = new DeepgramClient({
      apiKey: settings.apiKey,
      environment: { base, production: wsBase, agent: wsBase, agentRest: base },
      // A rejected key must fail the call's stream, not be retried 30 times.
      reconnect: false,
    });
  }

  async open(options: SttOptions, handlers: SttHandlers): Promise<SttStream> {
    const connection = await this.client.listen.v1.connect({
      model: this.settings.model ?? 'nova-3',
      encoding: 'linear16',
      sample_rate: options.sampleRate,
      channels: 1,
      language: options.language,
      interim_results: 'true',
      punctuate: 'true',
      vad_events: 'true',
      utterance_end_ms: 1000,
      queryParams: options.keyterms?.length ? { keyterm: options.keyterms } : {},
      reconnectAttempts: 0,
    });
    let opened = false;
    let closed = false;
    let closing = false;
    let lastSend = Date.now();
    // The socket turns CLOSING before its close event fires (the server may close first), and the
    // SDK throws on a send then: every send asks the socket itself.
    const sendable = () => opened && !closed && connection.readyState === WEBSOCKET_OPEN;
    // Only sends once open; cleared on close() and when the socket closes, however that happens.
    const idleMs = this.settings.keepAliveMs ?? KEEPALIVE_MS;
    const keepAlive = setInterval(() => {
      if (sendable() && Date.now() - lastSend >= idleMs) connection.sendKeepAlive({ type: 'KeepAlive' });
    }, idleMs);
    keepAlive.unref();
    let closedResolve: () => void = () => undefined;
    const closedPromise = new Promise<void>((resolve) => (closedResolve = resolve));
    const failures: SpeechProviderError[] = [];

    connection.on('message', (message) => {
      if (message.type === 'Results') {
        const best = message.channel.alternatives[0];
        if (!best) return;
        handlers.onTranscript({
          text: best.transcript,
          isFinal: message.is_final ?? false,
          // The answer to our Finalize (end of the turn, by our VAD) closes the utterance too.
          speechFinal: (message.speech_final ?? false) || (message.from_finalize ?? false),
          start: message.start,
          end: message.start + message.duration,
        });
      } else if (message.type === 'SpeechStarted') {
        handlers.onSpeechStarted?.(message.timestamp ?? null);
      } else if (message.type === 'UtteranceEnd') {
        handlers.onUtteranceEnd?.(message.last_word_end ?? null);
      }
    });
    connection.on('error', (error) => {
      const status = statusOf(error);
      const kind = status !== null && isAuthStatus(status) ? 'auth' : 'connection';
      const reason = status !== null ? `HTTP ${status}` : error.message;
      failures.push(new SpeechProviderError(PROVIDER, kind, `stream failed: ${reason}`, { cause: error }));
    });
    connection.on('close', (event) => {
      closed = true;
      clearInterval(keepAlive);
      closedResolve();
      if (opened && event.code !== 1000 && !closing) {
        const kind = isAuthStatus(event.code) ? 'auth' : 'protocol';
        handlers.onError?.(
          failures[0] ?? new SpeechProviderError(PROVIDER, kind, `closed with ${event.code} ${event.reason}`),
        );
      }
    });

    connection.connect();
    await Promise.race([
      connection.waitForOpen(),
      closedPromise.then(() => {
        throw failures[0] ?? new SpeechProviderError(PROVIDER, 'connection', 'socket closed before it opened');
      }),
    ]);
    opened = true;

    // Audio goes out in 100 ms messages rather than one per 20 ms frame: a fifth of the socket
    // writes, and Deepgram's own guidance for streaming (20–100 ms chunks).
    const batchSamples = options.sampleRate / 10;
    let batch: Int16Array[] = [];
    let batched = 0;
    const flush = () => {
      if (batched === 0 || !sendable()) return;
      connection.sendMedia(pcm16ToBytes(joinChunks(batch)));
      batch = [];
      batched = 0;
      lastSend = Date.now();
    };

    return {
      push(samples) {
        if (closed || closing) return;
        batch.push(samples);
        batched += samples.length;
        if (batched >= batchSamples) flush();
      },
      finalize() {
        if (closed || closing) return;
        flush();
        if (sendable()) connection.sendFinalize({ type: 'Finalize' });
      },
      async close() {
        if (closed || closing) return closedPromise;
        flush();
        closing = true;
        // No KeepAlive may follow CloseStream while Deepgram sends its last results.
        clearInterval(keepAlive);
        // CloseStream makes Deepgram send the last results and then close the socket itself.
        if (sendable()) connection.sendCloseStream({ type: 'CloseStream' });
        const timer = setTimeout(() => connection.close(), CLOSE_WAIT_MS);
        await closedPromise;
        clearTimeout(timer);
      },
    };
  }
}

/** The HTTP status of a refused handshake, from the `ws` error text ("Unexpected server response: 401"). */
function statusOf(error: Error): number | null {
  const match = /Unexpected server response: (\d{3})/.exec(error.message);
  return match ? Number(match[1]) : null;
}
