import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { DeepgramStt } from '../../voice/speech/deepgram-stt';
import { SpeechProviderError } from '../../voice/speech/errors';
import type { Transcript } from '../../voice/speech/stt';
import { waitFor } from '../helpers/wait-for';
import { startFakeProvider, tone, type FakeProvider } from './speech-server';

/** What the fake Deepgram saw on one socket. */
interface Seen {
  query: URLSearchParams;
  authorization: string | undefined;
  audioBytes: number;
  /** Bytes of each binary message. */
  messages: number[];
  controls: string[];
}

/** Deepgram's `/v1/listen` as documented: Token auth, binary audio in, JSON `Results` out. */
function deepgramSocket(seen: Seen[]) {
  return (socket: WebSocket, request: IncomingMessage) => {
    const record: Seen = {
      query: new URL(request.url ?? '/', 'http://x').searchParams,
      authorization: request.headers.authorization,
      audioBytes: 0,
      messages: [],
      controls: [],
    };
    seen.push(record);
    const results = (text: string, isFinal: boolean, speechFinal: boolean, start: number, duration: number) =>
      JSON.stringify({
        type: 'Results',
        channel_index: [0, 1],
        duration,
        start,
        is_final: isFinal,
        speech_final: speechFinal,
        channel: { alternatives: [{ transcript: text, confidence: 0.98, words: [] }] },
        metadata: { request_id: 'r1', model_info: { name: 'nova-3', version: '1', arch: 'x' }, model_uuid: 'm' },
      });
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        const before = record.audioBytes;
        record.audioBytes += (data as Buffer).length;
        record.messages.push((data as Buffer).length);
        // After 0.5 s of 8 kHz linear16: speech began and an interim result.
        if (before < 8000 && record.audioBytes >= 8000) {
          socket.send(JSON.stringify({ type: 'SpeechStarted', channel: [0], timestamp: 0.1 }));
          socket.send(results('hello', false, false, 0, 0.5));
        }
        return;
      }
      const control = JSON.parse((data as Buffer).toString()) as { type: string };
      record.controls.push(control.type);
      if (control.type === 'Finalize') {
        socket.send(results('hello world', true, true, 0, 1.0));
        socket.send(JSON.stringify({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 0.92 }));
      }
      if (control.type === 'CloseStream') {
        socket.send(JSON.stringify({ type: 'Metadata', request_id: 'r1', duration: 1 }));
        socket.close(1000);
      }
    });
  };
}

describe('Deepgram live STT adapter', () => {
  let provider: FakeProvider;
  const seen: Seen[] = [];

  beforeAll(async () => {
    provider = await startFakeProvider({
      accept: (request) =>
        new URL(request.url ?? '/', 'http://x').pathname !== '/v1/listen'
          ? 404
          : request.headers.authorization === 'Token dg-key'
            ? null
            : 401,
      onSocket: deepgramSocket(seen),
    });
  });
  afterAll(() => provider.close());

  it('streams linear16 with the documented query and turns Results into transcripts', async () => {
    const stt = new DeepgramStt({ apiKey: 'dg-key', baseUrl: provider.httpUrl });
    const transcripts: Transcript[] = [];
    const events: string[] = [];
    const stream = await stt.open(
      { sampleRate: 8000, language: 'en-US', keyterms: ['Switchboard', 'Acme'] },
      {
        onTranscript: (t) => transcripts.push(t),
        onSpeechStarted: (at) => events.push(`speech@${at}`),
        onUtteranceEnd: (at) => events.push(`end@${at}`),
      },
    );
    const audio = tone(8000, 1);
    for (let i = 0; i < audio.length; i += 160) stream.push(audio.subarray(i, i + 160));
    await waitFor('the first transcript', () => transcripts.length === 1);
    stream.finalize();
    await waitFor('both transcripts and events', () => transcripts.length === 2 && events.length === 2);
    await stream.close();

    const [socket] = seen;
    expect(socket?.authorization).toBe('Token dg-key');
    expect(Object.fromEntries(socket?.query ?? [])).toMatchObject({
      encoding: 'linear16',
      sample_rate: '8000',
      channels: '1',
      language: 'en-US',
      interim_results: 'true',
      vad_events: 'true',
      utterance_end_ms: '1000',
      model: 'nova-3',
    });
    expect(socket?.query.getAll('keyterm')).toEqual(['Switchboard', 'Acme']);
    expect(socket?.audioBytes).toBe(audio.length * 2);
    // 20 ms pushes go out as 100 ms messages (1,600 bytes at 8 kHz).
    expect(new Set(socket?.messages)).toEqual(new Set([1600]));
    expect(socket?.controls).toEqual(['Finalize', 'CloseStream']);
    expect(transcripts).toEqual([
      { text: 'hello', isFinal: false, speechFinal: false, start: 0, end: 0.5 },
      { text: 'hello world', isFinal: true, speechFinal: true, start: 0, end: 1 },
    ]);
    expect(events).toEqual(['speech@0.1', 'end@0.92']);
  });

  it('sends KeepAlive while no audio flows', async () => {
    seen.length = 0;
    const stt = new DeepgramStt({ apiKey: 'dg-key', baseUrl: provider.httpUrl, keepAliveMs: 30 });
    const stream = await stt.open({ sampleRate: 16000, language: 'en' }, { onTranscript: () => undefined });
    await waitFor('two control messages', () => (seen[0]?.controls.length ?? 0) >= 2);
    await stream.close();
    // The fake server reads the socket on its own schedule: the close message may land just after.
    await waitFor('the CloseStream message', () => seen[0]?.controls.includes('CloseStream'));
    expect(seen[0]?.query.get('sample_rate')).toBe('16000');
    expect(seen[0]?.controls.slice(0, 2)).toEqual(['KeepAlive', 'KeepAlive']);
    expect(seen[0]?.controls.at(-1)).toBe('CloseStream');
  });

  it('turns a 401 handshake into an auth SpeechProviderError', async () => {
    const stt = new DeepgramStt({ apiKey: 'wrong', baseUrl: provider.httpUrl });
    const opening = stt.open({ sampleRate: 8000, language: 'en' }, { onTranscript: () => undefined });
    await expect(opening).rejects.toBeInstanceOf(SpeechProviderError);
    await expect(opening).rejects.toMatchObject({ kind: 'auth', provider: 'deepgram' });
  });
});
