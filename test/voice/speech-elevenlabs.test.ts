import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { ElevenLabsTts } from '../../voice/speech/elevenlabs-tts';
import { waitFor } from '../helpers/wait-for';
import { startFakeProvider, type FakeProvider } from './speech-server';

/** 10 ms of 8 kHz audio per character of text, so the expected sample count is known. */
const SAMPLES_PER_CHAR = 80;

interface Seen {
  path: string;
  query: URLSearchParams;
  messages: Record<string, unknown>[];
  closed: boolean;
}

/** ElevenLabs `stream-input` as documented: JSON text in, JSON `{audio: base64, isFinal}` out. */
function elevenLabsSocket(seen: Seen[], slow: boolean) {
  return (socket: WebSocket, request: IncomingMessage) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const record: Seen = { path: url.pathname, query: url.searchParams, messages: [], closed: false };
    seen.push(record);
    socket.on('close', () => (record.closed = true));
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString()) as { text: string; xi_api_key?: string };
      record.messages.push(message);
      if (record.messages.length === 1) {
        if (message.xi_api_key !== 'el-key') socket.close(1008, 'Invalid API key');
        return;
      }
      if (message.text === '') {
        socket.send(JSON.stringify({ audio: null, isFinal: true }));
        return;
      }
      const pcm = Buffer.alloc(message.text.trim().length * SAMPLES_PER_CHAR * 2, 1);
      if (slow) {
        // Audio keeps coming, 20 ms at a time, until the client goes away.
        const timer = setInterval(
          () => socket.send(JSON.stringify({ audio: pcm.subarray(0, 320).toString('base64') })),
          5,
        );
        socket.on('close', () => clearInterval(timer));
        return;
      }
      // Odd-sized pieces: a sample split across two messages must still decode.
      for (let at = 0; at < pcm.length; at += 333) {
        socket.send(JSON.stringify({ audio: pcm.subarray(at, at + 333).toString('base64'), isFinal: null }));
      }
    });
  };
}

describe('ElevenLabs streaming TTS adapter', () => {
  let provider: FakeProvider;
  let slow = false;
  const seen: Seen[] = [];

  beforeAll(async () => {
    provider = await startFakeProvider({
      onSocket: (socket, request) => elevenLabsSocket(seen, slow)(socket, request),
    });
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    seen.length = 0;
    slow = false;
  });

  it('sends the init message, flushed sentences and EOS, and decodes pcm_8000 audio', async () => {
    const tts = new ElevenLabsTts({ apiKey: 'el-key', baseUrl: provider.url, defaultVoice: 'voice-1' });
    const chunks: Int16Array[] = [];
    let done = false;
    const stream = await tts.open(
      { sampleRate: 8000 },
      { onAudio: (s) => chunks.push(s), onDone: () => (done = true) },
    );
    stream.speak('Hello there.');
    stream.speak('How are you?');
    stream.end();
    await waitFor('the stream to end', () => done);

    const [socket] = seen;
    expect(socket?.path).toBe('/v1/text-to-speech/voice-1/stream-input');
    expect(socket?.query.get('output_format')).toBe('pcm_8000');
    expect(socket?.query.get('model_id')).toBe('eleven_flash_v2_5');
    expect(socket?.messages).toEqual([
      { text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8 }, xi_api_key: 'el-key' },
      { text: 'Hello there. ', flush: true },
      { text: 'How are you? ', flush: true },
      { text: '' },
    ]);
    const total = chunks.reduce((sum, c) => sum + c.length, 0);
    expect(total).toBe(('Hello there.'.length + 'How are you?'.length) * SAMPLES_PER_CHAR);
    expect(chunks.every((c) => c.every((v) => v === 0x0101))).toBe(true);
  });

  it('stops audio at once on cancel and closes the socket', async () => {
    slow = true;
    const tts = new ElevenLabsTts({ apiKey: 'el-key', baseUrl: provider.url, defaultVoice: 'v' });
    let received = 0;
    let done = false;
    const stream = await tts.open({ sampleRate: 16000 }, { onAudio: () => received++, onDone: () => (done = true) });
    stream.speak('A long answer that the caller interrupts.');
    await waitFor('three chunks', () => received >= 3);
    stream.cancel();
    const atCancel = received;
    await waitFor('the socket to close', () => seen[0]?.closed === true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe(atCancel);
    expect(done).toBe(false);
    expect(seen[0]?.query.get('output_format')).toBe('pcm_16000');
  });

  it('reports a rejected xi_api_key (close 1008) as an auth error', async () => {
    const tts = new ElevenLabsTts({ apiKey: 'wrong', baseUrl: provider.url, defaultVoice: 'v' });
    const errors: Error[] = [];
    await tts.open({ sampleRate: 8000 }, { onAudio: () => undefined, onError: (e) => errors.push(e) });
    await waitFor('the error', () => errors.length === 1);
    expect(errors[0]).toMatchObject({ name: 'SpeechProviderError', provider: 'elevenlabs', kind: 'auth' });
    expect(errors[0]?.message).toContain('Invalid API key');
  });
});
