import { parseConfig } from '../../platform/config';
import { CartesiaTts } from '../../voice/speech/cartesia-tts';
import { DeepgramStt } from '../../voice/speech/deepgram-stt';
import { ElevenLabsTts } from '../../voice/speech/elevenlabs-tts';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { OpenAiStt } from '../../voice/speech/openai-stt';
import { OpenAiTts } from '../../voice/speech/openai-tts';
import { PocketsphinxStt } from '../../voice/speech/pocketsphinx-stt';
import { selectSpeech, type SpeechSelection } from '../../voice/speech/select';
import type { KeyedSpeechProvider } from '../../voice/speech/speech-keys';
import { waitFor } from '../helpers/wait-for';
import { startFakeProvider, tone, type FakeProvider } from './speech-server';

const config = (env: Record<string, string>) => parseConfig({ NODE_ENV: 'test', ...env });

describe('speech provider selection', () => {
  it('defaults to the real provider origins', () => {
    const parsed = config({});
    expect(parsed.DEEPGRAM_BASE_URL).toBe('https://api.deepgram.com');
    expect(parsed.ELEVENLABS_BASE_URL).toBe('wss://api.elevenlabs.io');
    expect(parsed.CARTESIA_BASE_URL).toBe('wss://api.cartesia.ai');
  });

  it('falls back to the offline engines when no key is set', () => {
    const offline = selectSpeech({}, config({}));
    expect(offline.stt).toBeInstanceOf(PocketsphinxStt);
    expect(offline.tts).toBeInstanceOf(EspeakTts);
    expect(offline.keyterms).toEqual([]);
  });

  it('lets an agent or the service choose the offline engines even when keys are set', () => {
    const keys = { DEEPGRAM_API_KEY: 'd', ELEVENLABS_API_KEY: 'e' };
    const agent = selectSpeech(
      { stt_provider: 'pocketsphinx', tts_provider: 'espeak', voice: 'en-us+klatt' },
      config(keys),
    );
    expect(agent.stt).toBeInstanceOf(PocketsphinxStt);
    expect(agent.tts).toBeInstanceOf(EspeakTts);
    expect(agent.voice).toBe('en-us+klatt');
    const service = selectSpeech({}, config({ ...keys, STT_PROVIDER: 'pocketsphinx', TTS_PROVIDER: 'espeak' }));
    expect(service.stt).toBeInstanceOf(PocketsphinxStt);
    expect(service.tts).toBeInstanceOf(EspeakTts);
  });

  it('takes the first provider with a key, then the service default, then the agent', () => {
    const keys = { DEEPGRAM_API_KEY: 'd', ELEVENLABS_API_KEY: 'e', CARTESIA_API_KEY: 'c', LLM_API_KEY: 'o' };
    const first = selectSpeech(null, config(keys));
    expect(first.stt).toBeInstanceOf(DeepgramStt);
    expect(first.tts).toBeInstanceOf(ElevenLabsTts);

    const service = selectSpeech({}, config({ ...keys, STT_PROVIDER: 'openai', TTS_PROVIDER: 'cartesia' }));
    expect(service.stt).toBeInstanceOf(OpenAiStt);
    expect(service.tts).toBeInstanceOf(CartesiaTts);

    const agent = selectSpeech(
      {
        stt_provider: 'deepgram',
        tts_provider: 'openai',
        voice: 'coral',
        dictionary: 'Acme, Switchboard ,',
        max_call_duration: 60,
      },
      config({ ...keys, STT_PROVIDER: 'openai', TTS_PROVIDER: 'cartesia' }),
    );
    expect(agent.stt).toBeInstanceOf(DeepgramStt);
    expect(agent.tts).toBeInstanceOf(OpenAiTts);
    expect(agent.voice).toBe('coral');
    expect(agent.keyterms).toEqual(['Acme', 'Switchboard']);
  });

  it('refuses a provider without a key and an unknown provider name', () => {
    expect(() => selectSpeech({ tts_provider: 'cartesia' }, config({ ELEVENLABS_API_KEY: 'e' }))).toThrow(
      "cartesia: chosen but its API key is not set (neither the organization's nor the environment's)",
    );
    expect(() => selectSpeech({ stt_provider: 'whisper' }, config({}))).toThrow(/workflow_configurations/);
    expect(() => config({ TTS_PROVIDER: 'polly' })).toThrow(/TTS_PROVIDER/);
  });
});

describe("speech provider selection with the organization's keys", () => {
  it('offers a provider for which only the organization has a key', () => {
    const selection = selectSpeech({}, config({}), { deepgram: 'org-d', cartesia: 'org-c' });
    expect(selection.stt).toBeInstanceOf(DeepgramStt);
    expect(selection.tts).toBeInstanceOf(CartesiaTts);
    const chosen = selectSpeech({ stt_provider: 'openai', tts_provider: 'openai' }, config({}), { openai: 'org-o' });
    expect(chosen.stt).toBeInstanceOf(OpenAiStt);
    expect(chosen.tts).toBeInstanceOf(OpenAiTts);
  });

  it('keeps the order: agent, then STT_PROVIDER / TTS_PROVIDER, then the first provider with any key', () => {
    const env = { DEEPGRAM_API_KEY: 'd', LLM_API_KEY: 'o' };
    // The organization's key makes cartesia available, but the agent and the service default still choose.
    const agent = selectSpeech({ tts_provider: 'openai' }, config({ ...env, TTS_PROVIDER: 'espeak' }), {
      cartesia: 'org-c',
    });
    expect(agent.tts).toBeInstanceOf(OpenAiTts);
    const service = selectSpeech({}, config({ ...env, STT_PROVIDER: 'openai', TTS_PROVIDER: 'espeak' }), {
      deepgram: 'org-d',
      cartesia: 'org-c',
    });
    expect(service.stt).toBeInstanceOf(OpenAiStt);
    expect(service.tts).toBeInstanceOf(EspeakTts);
    // "First with a key" goes by provider order, whoever owns the key: the environment's deepgram
    // comes before the organization's openai.
    const first = selectSpeech({}, config({ DEEPGRAM_API_KEY: 'd' }), { openai: 'org-o' });
    expect(first.stt).toBeInstanceOf(DeepgramStt);
    expect(first.tts).toBeInstanceOf(OpenAiTts);
  });

  it('treats an empty organization key as none', () => {
    expect(selectSpeech({}, config({}), { deepgram: '' }).stt).toBeInstanceOf(PocketsphinxStt);
    expect(() => selectSpeech({ stt_provider: 'deepgram' }, config({}), { deepgram: '' })).toThrow(
      'deepgram: chosen but its API key is not set',
    );
  });

  describe('the key each adapter presents to its provider', () => {
    let provider: FakeProvider;
    /** What reached the local provider, by provider: the credential as sent (header or message). */
    const presented: Partial<Record<KeyedSpeechProvider | 'openai-stt', string>> = {};
    const refuse = (name: 'deepgram' | 'cartesia', credential: string | undefined) => {
      presented[name] = credential;
      return 401;
    };
    beforeEach(() => {
      for (const name of Object.keys(presented)) delete presented[name as keyof typeof presented];
    });

    beforeAll(async () => {
      // One local server speaks for all four: each provider's way of sending its key, then a refusal.
      provider = await startFakeProvider({
        accept: (request) => {
          if (request.url?.startsWith('/v1/listen')) return refuse('deepgram', request.headers.authorization);
          if (request.url?.startsWith('/tts/websocket')) {
            return refuse('cartesia', request.headers['x-api-key'] as string | undefined);
          }
          return null; // ElevenLabs: the key comes in the first message.
        },
        onSocket: (socket) =>
          socket.once('message', (data) => {
            presented.elevenlabs = (JSON.parse((data as Buffer).toString()) as { xi_api_key?: string }).xi_api_key;
            socket.close(1008, 'invalid api key');
          }),
        onHttp: (request, response) => {
          const name = request.url === '/v1/audio/transcriptions' ? 'openai-stt' : 'openai';
          presented[name] = request.headers.authorization;
          request.resume();
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }));
        },
      });
    });
    afterAll(() => provider.close());

    const envWithKeys = () =>
      config({
        DEEPGRAM_API_KEY: 'env-deepgram',
        DEEPGRAM_BASE_URL: provider.httpUrl,
        ELEVENLABS_API_KEY: 'env-elevenlabs',
        ELEVENLABS_BASE_URL: provider.url,
        CARTESIA_API_KEY: 'env-cartesia',
        CARTESIA_BASE_URL: provider.url,
        LLM_API_KEY: 'env-openai',
        // OpenAI speech goes to LLM_BASE_URL whoever owns the key.
        LLM_BASE_URL: `${provider.httpUrl}/v1`,
      });

    /** Opens the selection's streams far enough for each provider to see a key, and waits for the refusals. */
    async function present(selection: SpeechSelection): Promise<void> {
      const errors: Error[] = [];
      const onError = (error: Error) => errors.push(error);
      await selection.stt
        .open({ sampleRate: 8000, language: 'en' }, { onTranscript: () => undefined, onError })
        .then((stream) => {
          stream.push(tone(8000, 0.2));
          stream.finalize();
        }, onError);
      await selection.tts.open({ sampleRate: 8000 }, { onAudio: () => undefined, onError }).then((stream) => {
        stream.speak('Hello.');
        stream.end();
      }, onError);
      await waitFor('both errors', () => errors.length === 2);
      for (const error of errors) expect(error).toMatchObject({ kind: 'auth' });
    }

    it("sends the organization's key instead of the environment's", async () => {
      const organizationKeys = {
        deepgram: 'org-deepgram',
        elevenlabs: 'org-elevenlabs',
        cartesia: 'org-cartesia',
        openai: 'org-openai',
      };
      await present(
        selectSpeech({ stt_provider: 'deepgram', tts_provider: 'elevenlabs' }, envWithKeys(), organizationKeys),
      );
      await present(
        selectSpeech({ stt_provider: 'openai', tts_provider: 'cartesia' }, envWithKeys(), organizationKeys),
      );
      await present(selectSpeech({ stt_provider: 'openai', tts_provider: 'openai' }, envWithKeys(), organizationKeys));
      expect(presented).toEqual({
        deepgram: 'Token org-deepgram',
        elevenlabs: 'org-elevenlabs',
        cartesia: 'org-cartesia',
        openai: 'Bearer org-openai',
        'openai-stt': 'Bearer org-openai',
      });
    });

    it("sends the environment's key for providers the organization has none for", async () => {
      await present(
        selectSpeech({ stt_provider: 'deepgram', tts_provider: 'cartesia' }, envWithKeys(), { openai: 'o' }),
      );
      expect(presented).toEqual({ deepgram: 'Token env-deepgram', cartesia: 'env-cartesia' });
    });
  });
});
