import { z } from 'zod';
import type { Config } from '../../platform/config';
import { CartesiaTts } from './cartesia-tts';
import { DeepgramStt } from './deepgram-stt';
import { ElevenLabsTts } from './elevenlabs-tts';
import { SpeechProviderError } from './errors';
import { OpenAiStt } from './openai-stt';
import { OpenAiTts } from './openai-tts';
import type { SpeechToText } from './stt';
import type { TextToSpeech } from './tts';

export const STT_PROVIDERS = ['deepgram', 'openai'] as const;
export const TTS_PROVIDERS = ['elevenlabs', 'cartesia', 'openai'] as const;
export type SttProvider = (typeof STT_PROVIDERS)[number];
export type TtsProvider = (typeof TTS_PROVIDERS)[number];

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
  /** null: no provider is configured (the offline engines of issue 8 fill this gap). */
  stt: SpeechToText | null;
  tts: TextToSpeech | null;
  voice: string | undefined;
  keyterms: string[];
}

const keyOf = (config: SpeechConfig): Record<SttProvider | TtsProvider, string | undefined> => ({
  deepgram: config.DEEPGRAM_API_KEY,
  elevenlabs: config.ELEVENLABS_API_KEY,
  cartesia: config.CARTESIA_API_KEY,
  openai: config.LLM_API_KEY,
});

/**
 * The agent's choice (`workflow_configurations`), else the service default (STT_PROVIDER,
 * TTS_PROVIDER), else the first provider with a key. Naming a provider without a key is an error.
 */
export function selectSpeech(workflowConfigurations: unknown, config: SpeechConfig): SpeechSelection {
  const parsed = SpeechChoice.safeParse(workflowConfigurations ?? {});
  if (!parsed.success) {
    throw new SpeechProviderError('speech', 'configuration', `workflow_configurations: ${parsed.error.message}`);
  }
  const choice = parsed.data;
  const keys = keyOf(config);
  const pick = <P extends SttProvider | TtsProvider>(named: P | undefined, all: readonly P[]): P | null => {
    if (named) {
      if (!keys[named]) throw new SpeechProviderError(named, 'configuration', 'chosen but its API key is not set');
      return named;
    }
    return all.find((provider) => keys[provider]) ?? null;
  };
  const sttName = pick(choice.stt_provider ?? config.STT_PROVIDER, STT_PROVIDERS);
  const ttsName = pick(choice.tts_provider ?? config.TTS_PROVIDER, TTS_PROVIDERS);
  const keyterms = (choice.dictionary ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean);
  return {
    stt: sttName && buildStt(sttName, config),
    tts: ttsName && buildTts(ttsName, config),
    voice: choice.voice,
    keyterms,
  };
}

function buildStt(name: SttProvider, config: SpeechConfig): SpeechToText {
  const key = keyOf(config)[name] ?? '';
  if (name === 'deepgram') {
    return new DeepgramStt({ apiKey: key, baseUrl: config.DEEPGRAM_BASE_URL, model: config.DEEPGRAM_MODEL });
  }
  return new OpenAiStt({ apiKey: key, baseUrl: config.LLM_BASE_URL, sttModel: config.OPENAI_STT_MODEL });
}

function buildTts(name: TtsProvider, config: SpeechConfig): TextToSpeech {
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
