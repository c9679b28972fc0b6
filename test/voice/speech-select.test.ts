import { parseConfig } from '../../platform/config';
import { CartesiaTts } from '../../voice/speech/cartesia-tts';
import { DeepgramStt } from '../../voice/speech/deepgram-stt';
import { ElevenLabsTts } from '../../voice/speech/elevenlabs-tts';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { OpenAiStt } from '../../voice/speech/openai-stt';
import { OpenAiTts } from '../../voice/speech/openai-tts';
import { PocketsphinxStt } from '../../voice/speech/pocketsphinx-stt';
import { selectSpeech } from '../../voice/speech/select';

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
      'cartesia: chosen but its API key is not set',
    );
    expect(() => selectSpeech({ stt_provider: 'whisper' }, config({}))).toThrow(/workflow_configurations/);
    expect(() => config({ TTS_PROVIDER: 'polly' })).toThrow(/TTS_PROVIDER/);
  });
});
