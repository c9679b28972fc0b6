import type { WebSocket } from 'ws';
import { pathOf, startLocalServer, type LocalServer } from './local-server';

/** Deepgram live transcription (`/v1/listen`) with a fixed latency: every `Finalize` is answered `finalMs` later. */
export interface FakeDeepgramOptions {
  apiKey: string;
  /** What the caller says: the transcript of every utterance. */
  text: string;
  finalMs: number;
}

/** linear16 mono at 8 kHz, as the pipeline streams it. */
const BYTES_PER_SECOND = 16_000;

/**
 * Speaks the real protocol as the official SDK expects it: Token auth on the upgrade, binary
 * audio in (only counted), `Results` out. A `Finalize` gets one final result (`is_final`,
 * `from_finalize`) with the known text for the audio since the last one, exactly `finalMs` later;
 * KeepAlive is taken silently; CloseStream sends `Metadata` and closes normally. No interim results:
 * the fake should cost the machine nothing but its socket.
 */
export function startFakeDeepgram(options: FakeDeepgramOptions): Promise<LocalServer> {
  return startLocalServer({
    accept: (request) =>
      pathOf(request) !== '/v1/listen' ? 404 : request.headers.authorization === `Token ${options.apiKey}` ? null : 401,
    onSocket: (socket) => listen(socket, options),
  });
}

function listen(socket: WebSocket, { text, finalMs }: FakeDeepgramOptions): void {
  let bytes = 0;
  /** Where (in bytes) the audio already answered by a final result ends. */
  let finalized = 0;
  const timers = new Set<NodeJS.Timeout>();
  socket.on('close', () => timers.forEach(clearTimeout));
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) {
      bytes += data.length;
      return;
    }
    const type = (JSON.parse(data.toString('utf8')) as { type?: string }).type;
    if (type === 'Finalize') {
      const start = finalized / BYTES_PER_SECOND;
      const duration = (bytes - finalized) / BYTES_PER_SECOND;
      const heard = bytes > finalized;
      finalized = bytes;
      const timer = setTimeout(() => {
        timers.delete(timer);
        socket.send(results(heard ? text : '', start, duration));
      }, finalMs);
      timers.add(timer);
    } else if (type === 'CloseStream') {
      socket.send(JSON.stringify({ type: 'Metadata', request_id: 'bench', duration: bytes / BYTES_PER_SECOND }));
      socket.close(1000);
    }
  });
}

const results = (transcript: string, start: number, duration: number): string =>
  JSON.stringify({
    type: 'Results',
    channel_index: [0, 1],
    duration,
    start,
    is_final: true,
    speech_final: false,
    from_finalize: true,
    channel: { alternatives: [{ transcript, confidence: 0.99, words: [] }] },
    metadata: {
      request_id: 'bench',
      model_info: { name: 'nova-3', version: 'bench', arch: 'bench' },
      model_uuid: 'bench',
    },
  });
