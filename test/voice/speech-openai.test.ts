import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { parseWavHeader } from '../../voice/wav';
import { OpenAiStt } from '../../voice/speech/openai-stt';
import { OpenAiTts } from '../../voice/speech/openai-tts';
import type { Transcript } from '../../voice/speech/stt';
import { waitFor } from '../helpers/wait-for';
import { startFakeProvider, tone, type FakeProvider } from './speech-server';

interface SpeechRequest {
  authorization: string | undefined;
  body: Record<string, unknown>;
  aborted: boolean;
}
interface TranscriptionRequest {
  fields: Record<string, string>;
  wav: Buffer;
}

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
};

/** OpenAI's audio endpoints as documented: Bearer auth, JSON or multipart in, raw PCM or JSON out. */
function openAiHttp(speech: SpeechRequest[], transcriptions: TranscriptionRequest[], endless: () => boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.headers.authorization !== 'Bearer oa-key') {
        await readBody(req);
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
          }),
        );
        return;
      }
      if (req.url === '/v1/audio/speech') {
        const record: SpeechRequest = {
          authorization: req.headers.authorization,
          body: JSON.parse((await readBody(req)).toString()) as Record<string, unknown>,
          aborted: false,
        };
        speech.push(record);
        res.on('close', () => (record.aborted = !res.writableFinished));
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        // Half a second of 24 kHz PCM16, in odd-sized pieces; or audio without end.
        const pcm = Buffer.alloc(24000);
        const samples = tone(24000, 0.5);
        for (let i = 0; i < samples.length; i++) pcm.writeInt16LE(samples[i] ?? 0, i * 2);
        if (endless()) {
          const timer = setInterval(() => res.write(pcm.subarray(0, 960)), 5);
          res.on('close', () => clearInterval(timer));
          return;
        }
        for (let at = 0; at < pcm.length; at += 4097) res.write(pcm.subarray(at, at + 4097));
        res.end();
        return;
      }
      if (req.url === '/v1/audio/transcriptions') {
        const record: TranscriptionRequest = { fields: {}, wav: Buffer.alloc(0) };
        const parser = busboy({ headers: req.headers });
        parser.on('field', (name, value) => (record.fields[name] = value));
        parser.on('file', (_name, file) => {
          const parts: Buffer[] = [];
          file.on('data', (part: Buffer) => parts.push(part));
          file.on('end', () => (record.wav = Buffer.concat(parts)));
        });
        parser.on('close', () => {
          transcriptions.push(record);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ text: `utterance ${transcriptions.length}` }));
        });
        req.pipe(parser);
        return;
      }
      res.writeHead(404).end();
    })();
  };
}

const rms = (chunks: Int16Array[]): number => {
  const all = chunks.flatMap((c) => Array.from(c)).slice(200);
  return Math.sqrt(all.reduce((sum, v) => sum + v * v, 0) / all.length);
};

describe('OpenAI speech adapters', () => {
  let provider: FakeProvider;
  let endless = false;
  const speech: SpeechRequest[] = [];
  const transcriptions: TranscriptionRequest[] = [];

  beforeAll(async () => {
    provider = await startFakeProvider({ onHttp: openAiHttp(speech, transcriptions, () => endless) });
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    speech.length = 0;
    transcriptions.length = 0;
    endless = false;
  });

  it.each([8000, 16000] as const)(
    'TTS asks for pcm and resamples 24 kHz to %i Hz, sentence by sentence',
    async (rate) => {
      const tts = new OpenAiTts({ apiKey: 'oa-key', baseUrl: `${provider.httpUrl}/v1`, defaultVoice: 'coral' });
      const chunks: Int16Array[] = [];
      let done = false;
      const stream = await tts.open(
        { sampleRate: rate },
        { onAudio: (s) => chunks.push(s), onDone: () => (done = true) },
      );
      stream.speak('First sentence.');
      stream.speak('Second one.');
      stream.end();
      await waitFor('the stream to end', () => done);
      expect(speech.map((r) => r.body)).toEqual([
        { model: 'gpt-4o-mini-tts', voice: 'coral', input: 'First sentence.', response_format: 'pcm' },
        { model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Second one.', response_format: 'pcm' },
      ]);
      // 2 × 0.5 s of audio at the requested rate; the 440 Hz tone keeps its level (8000 peak).
      expect(chunks.reduce((sum, c) => sum + c.length, 0)).toBe(rate);
      expect(rms(chunks)).toBeGreaterThan(5657 * 0.9);
      expect(rms(chunks)).toBeLessThan(5657 * 1.1);
    },
  );

  it('TTS cancel aborts the request and no audio follows', async () => {
    endless = true;
    const tts = new OpenAiTts({ apiKey: 'oa-key', baseUrl: `${provider.httpUrl}/v1` });
    let received = 0;
    const stream = await tts.open({ sampleRate: 8000 }, { onAudio: () => received++ });
    stream.speak('Go on and on.');
    await waitFor('three chunks', () => received >= 3);
    stream.cancel();
    const atCancel = received;
    await waitFor('the request to be aborted', () => speech[0]?.aborted === true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe(atCancel);
  });

  it('TTS reports a 401 as an auth error', async () => {
    const tts = new OpenAiTts({ apiKey: 'wrong', baseUrl: `${provider.httpUrl}/v1` });
    const errors: Error[] = [];
    const stream = await tts.open({ sampleRate: 8000 }, { onAudio: () => undefined, onError: (e) => errors.push(e) });
    stream.speak('Hello.');
    await waitFor('the error', () => errors.length === 1);
    expect(errors[0]).toMatchObject({ name: 'SpeechProviderError', provider: 'openai', kind: 'auth' });
  });

  it('STT sends each finalized utterance as an 8 kHz WAV and returns timed final transcripts', async () => {
    const stt = new OpenAiStt({ apiKey: 'oa-key', baseUrl: `${provider.httpUrl}/v1` });
    const transcripts: Transcript[] = [];
    const stream = await stt.open(
      { sampleRate: 8000, language: 'en-US', keyterms: ['Acme'] },
      { onTranscript: (t) => transcripts.push(t) },
    );
    const audio = tone(8000, 1);
    for (let i = 0; i < audio.length; i += 160) stream.push(audio.subarray(i, i + 160));
    stream.finalize();
    stream.push(tone(8000, 0.05)); // too short to be an utterance
    stream.finalize();
    stream.push(tone(8000, 0.5));
    await stream.close();

    expect(transcripts).toEqual([
      { text: 'utterance 1', isFinal: true, speechFinal: true, start: 0, end: 1 },
      { text: 'utterance 2', isFinal: true, speechFinal: true, start: 1.05, end: 1.55 },
    ]);
    expect(transcriptions.map((t) => t.fields)).toEqual([
      { model: 'gpt-4o-mini-transcribe', language: 'en', prompt: 'Acme' },
      { model: 'gpt-4o-mini-transcribe', language: 'en', prompt: 'Acme' },
    ]);
    expect(parseWavHeader(transcriptions[0]?.wav ?? Buffer.alloc(0))).toMatchObject({ sampleRate: 8000, channels: 1 });
    expect(transcriptions[0]?.wav.length).toBe(44 + 16000);
  });

  it('STT reports a 401 as an auth error', async () => {
    const stt = new OpenAiStt({ apiKey: 'wrong', baseUrl: `${provider.httpUrl}/v1` });
    const errors: Error[] = [];
    const stream = await stt.open(
      { sampleRate: 8000, language: 'en' },
      { onTranscript: () => undefined, onError: (e) => errors.push(e) },
    );
    stream.push(tone(8000, 0.5));
    await stream.close();
    expect(errors[0]).toMatchObject({ name: 'SpeechProviderError', provider: 'openai', kind: 'auth' });
  });
});
