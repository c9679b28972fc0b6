import { z } from 'zod';
import type { Config } from '../../platform/config';
import { CartesiaTts } from './cartesia-tts';
import { DeepgramStt } from './deepgram-stt';
import { ElevenLabsTts } from './elevenlabs-tts';
import { SpeechProviderError } from './errors';
import { EspeakTts } from './espeak-tts';
import { OpenAiStt } from './openai-stt';
import { OpenAiTts } from './openai-tts';
import { PocketsphinxStt } from './pocketsphinx-stt';
import type { SpeechToText } from './stt';
import type { TextToSpeech } from './tts';

/** Keyed providers first, in precedence order; the last is the offline engine that needs no key. */
export const STT_PROVIDERS = ['deepgram', 'openai', 'pocketsphinx'] as const;
export const TTS_PROVIDERS = ['elevenlabs', 'cartesia', 'openai', 'espeak'] as const;
export type SttProvider = (typeof STT_PROVIDERS)[number];
export type TtsProvider = (typeof TTS_PROVIDERS)[number];
type KeyedProvider = Exclude<SttProvider | TtsProvider, 'pocketsphinx' | 'espeak'>;

/** The `workflow_configurations` keys that choose speech (dograh has none that fit, so these are ours). */
const SpeechChoice = z.object({
  stt_provider: z.enum(STT_PROVIDERS).optional(),
  tts_provider: z.enum(TTS_PROVIDERS).optional(),
  /** The TTS provider's voice id; unset: that provider's default from the environment. */
  voice: z.string().min(1).optional(),
  /** Comma-separated key terms for speech-to-text (dograh's `dictionary`). */
  dictionary: z.string().optional(),
});

type SpeechConfig = Pick<
  Config,
  | 'DEEPGRAM_API_KEY'
  | 'DEEPGRAM_BASE_URL'
  | 'DEEPGRAM_MODEL'
  | 'ELEVENLABS_API_KEY'
  | 'ELEVENLABS_BASE_URL'
  | 'ELEVENLABS_MODEL'
  | 'ELEVENLABS_VOICE_ID'
  | 'CARTESIA_API_KEY'
  | 'CARTESIA_BASE_URL'
  | 'CARTESIA_MODEL'
  | 'CARTESIA_VOICE_ID'
  | 'LLM_API_KEY'
  | 'LLM_BASE_URL'
  | 'OPENAI_TTS_MODEL'
  | 'OPENAI_TTS_VOICE'
  | 'OPENAI_STT_MODEL'
  | 'STT_PROVIDER'
  | 'TTS_PROVIDER'
>;

export interface SpeechSelection {
  stt: SpeechToText;
  tts: TextToSpeech;
  voice: string | undefined;
  keyterms: string[];
}

const keyOf = (config: SpeechConfig): Record<KeyedProvider, string | undefined> => ({
  deepgram: config.DEEPGRAM_API_KEY,
  elevenlabs: config.ELEVENLABS_API_KEY,
  cartesia: config.CARTESIA_API_KEY,
  openai: config.LLM_API_KEY,
});

/**
 * The agent's choice (`workflow_configurations`), else the service default (STT_PROVIDER,
 * TTS_PROVIDER), else the first provider with a key, else the offline engines (espeak-ng,
 * PocketSphinx), which need none. Naming a keyed provider without its key is an error.
 */
export function selectSpeech(workflowConfigurations: unknown, config: SpeechConfig): SpeechSelection {
  const parsed = SpeechChoice.safeParse(workflowConfigurations ?? {});
  if (!parsed.success) {
    throw new SpeechProviderError('speech', 'configuration', `workflow_configurations: ${parsed.error.message}`);
  }
  const choice = parsed.data;
  const keys = keyOf(config);
  const needsKey = (provider: SttProvider | TtsProvider): provider is KeyedProvider => provider in keys;
  const hasKey = (provider: SttProvider | TtsProvider): boolean => !needsKey(provider) || Boolean(keys[provider]);
  const pick = <P extends SttProvider | TtsProvider>(named: P | undefined, all: readonly P[]): P => {
    if (named) {
      if (!hasKey(named)) throw new SpeechProviderError(named, 'configuration', 'chosen but its API key is not set');
      return named;
    }
    // The offline engine is last in `all` and always "has" its key, so something is always found.
    return all.find(hasKey) ?? (all[all.length - 1] as P);
  };
  const sttName = pick(choice.stt_provider ?? config.STT_PROVIDER, STT_PROVIDERS);
  const ttsName = pick(choice.tts_provider ?? config.TTS_PROVIDER, TTS_PROVIDERS);
  const keyterms = (choice.dictionary ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean);
  return {
    stt: buildStt(sttName, config),
    tts: buildTts(ttsName, config),
    voice: choice.voice,
    keyterms,
  };
}

function buildStt(name: SttProvider, config: SpeechConfig): SpeechToText {
  if (name === 'pocketsphinx') return new PocketsphinxStt();
  const key = keyOf(config)[name] ?? '';
  if (name === 'deepgram') {
    return new DeepgramStt({ apiKey: key, baseUrl: config.DEEPGRAM_BASE_URL, model: config.DEEPGRAM_MODEL });
  }
  return new OpenAiStt({ apiKey: key, baseUrl: config.LLM_BASE_URL, sttModel: config.OPENAI_STT_MODEL });
}

function buildTts(name: TtsProvider, config: SpeechConfig): TextToSpeech {
  if (name === 'espeak') return new EspeakTts();
  const key = keyOf(config)[name] ?? '';
  switch (name) {
    case 'elevenlabs':
      return new ElevenLabsTts({
        apiKey: key,
        baseUrl: config.ELEVENLABS_BASE_URL,
        model: config.ELEVENLABS_MODEL,
        defaultVoice: config.ELEVENLABS_VOICE_ID,
      });
    case 'cartesia':
      return new CartesiaTts({
        apiKey: key,
        baseUrl: config.CARTESIA_BASE_URL,
        model: config.CARTESIA_MODEL,
        defaultVoice: config.CARTESIA_VOICE_ID,
      });
    case 'openai':
      return new OpenAiTts({
        apiKey: key,
        baseUrl: config.LLM_BASE_URL,
        ttsModel: config.OPENAI_TTS_MODEL,
        defaultVoice: config.OPENAI_TTS_VOICE,
      });
  }
}
