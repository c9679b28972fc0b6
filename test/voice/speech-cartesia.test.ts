import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { CARTESIA_VERSION, CartesiaTts } from '../../voice/speech/cartesia-tts';
import { waitFor } from '../helpers/wait-for';
import { startFakeProvider, type FakeProvider } from './speech-server';

const SAMPLES_PER_CHAR = 160;

interface Request {
  context_id: string;
  transcript?: string;
  continue?: boolean;
  cancel?: boolean;
  model_id?: string;
  voice?: unknown;
  output_format?: unknown;
}

interface Seen {
  headers: IncomingMessage['headers'];
  messages: Request[];
  closed: boolean;
}

/** Cartesia `/tts/websocket` as documented: generation requests per context, `chunk`/`done` back. */
function cartesiaSocket(seen: Seen[], slow: () => boolean) {
  return (socket: WebSocket, request: IncomingMessage) => {
    const record: Seen = { headers: request.headers, messages: [], closed: false };
    seen.push(record);
    socket.on('close', () => (record.closed = true));
    const chunk = (contextId: string, pcm: Buffer) =>
      JSON.stringify({
        type: 'chunk',
        data: pcm.toString('base64'),
        done: false,
        status_code: 206,
        step_time: 5,
        context_id: contextId,
      });
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString()) as Request;
      record.messages.push(message);
      if (message.cancel) return;
      const id = message.context_id;
      if (slow()) {
        const timer = setInterval(() => socket.send(chunk(id, Buffer.alloc(640))), 5);
        socket.on('close', () => clearInterval(timer));
        return;
      }
      const text = message.transcript?.trim() ?? '';
      const pcm = Buffer.alloc(text.length * SAMPLES_PER_CHAR * 2, 2);
      // Another context's audio on the same socket must be ignored.
      socket.send(chunk('other-context', Buffer.alloc(64)));
      for (let at = 0; at < pcm.length; at += 1001) socket.send(chunk(id, pcm.subarray(at, at + 1001)));
      if (message.continue === false)
        socket.send(JSON.stringify({ type: 'done', done: true, status_code: 206, context_id: id }));
    });
  };
}

describe('Cartesia streaming TTS adapter', () => {
  let provider: FakeProvider;
  let slow = false;
  const seen: Seen[] = [];

  beforeAll(async () => {
    provider = await startFakeProvider({
      accept: (request) =>
        request.url?.startsWith('/tts/websocket') !== true
          ? 404
          : request.headers['x-api-key'] === 'ca-key'
            ? null
            : 401,
      onSocket: (socket, request) => cartesiaSocket(seen, () => slow)(socket, request),
    });
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    seen.length = 0;
    slow = false;
  });

  it('sends one context with continuations and decodes raw pcm_s16le chunks', async () => {
    const tts = new CartesiaTts({ apiKey: 'ca-key', baseUrl: provider.url, defaultVoice: 'voice-a' });
    const chunks: Int16Array[] = [];
    let done = false;
    const stream = await tts.open(
      { sampleRate: 8000, voice: 'voice-b', language: 'fr' },
      { onAudio: (s) => chunks.push(s), onDone: () => (done = true) },
    );
    stream.speak('Bonjour.');
    stream.speak('Ça va ?');
    stream.end();
    await waitFor('the stream to end', () => done);

    const [socket] = seen;
    expect(socket?.headers['cartesia-version']).toBe(CARTESIA_VERSION);
    const messages = socket?.messages ?? [];
    expect(messages.map((m) => [m.transcript, m.continue])).toEqual([
      ['Bonjour. ', true],
      ['Ça va ? ', true],
      ['', false],
    ]);
    expect(new Set(messages.map((m) => m.context_id)).size).toBe(1);
    expect(messages[0]).toMatchObject({
      model_id: 'sonic-2',
      voice: { mode: 'id', id: 'voice-b' },
      language: 'fr',
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 8000 },
    });
    const total = chunks.reduce((sum, c) => sum + c.length, 0);
    expect(total).toBe(('Bonjour.'.length + 'Ça va ?'.length) * SAMPLES_PER_CHAR);
    expect(chunks.every((c) => c.every((v) => v === 0x0202))).toBe(true);
  });

  it('cancels the context and stops audio at once', async () => {
    slow = true;
    const tts = new CartesiaTts({ apiKey: 'ca-key', baseUrl: provider.url, defaultVoice: 'v' });
    let received = 0;
    const stream = await tts.open({ sampleRate: 16000 }, { onAudio: () => received++ });
    stream.speak('Something long.');
    await waitFor('three chunks', () => received >= 3);
    stream.cancel();
    const atCancel = received;
    await waitFor('the socket to close', () => seen[0]?.closed === true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe(atCancel);
    const messages = seen[0]?.messages ?? [];
    expect(messages.at(-1)).toEqual({ context_id: messages[0]?.context_id, cancel: true });
  });

  it('turns a 401 handshake into an auth error', async () => {
    const tts = new CartesiaTts({ apiKey: 'wrong', baseUrl: provider.url, defaultVoice: 'v' });
    await expect(tts.open({ sampleRate: 8000 }, { onAudio: () => undefined })).rejects.toMatchObject({
      name: 'SpeechProviderError',
      provider: 'cartesia',
      kind: 'auth',
    });
  });
});
