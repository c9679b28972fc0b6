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
import { isKeyedSpeechProvider, type KeyedSpeechProvider, type OrganizationSpeechKeys } from './speech-keys';
import type { SpeechToText } from './stt';
import type { TextToSpeech } from './tts';

/** Keyed providers first, in precedence order; the last is the offline engine that needs no key. */
export const STT_PROVIDERS = ['deepgram', 'openai', 'pocketsphinx'] as const;
export const TTS_PROVIDERS = ['elevenlabs', 'cartesia', 'openai', 'espeak'] as const;
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
  stt: SpeechToText;
  tts: TextToSpeech;
  voice: string | undefined;
  keyterms: string[];
}

type SpeechKeys = Record<KeyedSpeechProvider, string | undefined>;

/** The organization's key for each provider, else the environment's. */
const keysOf = (config: SpeechConfig, organizationKeys: OrganizationSpeechKeys): SpeechKeys => ({
  deepgram: organizationKeys.deepgram || config.DEEPGRAM_API_KEY,
  elevenlabs: organizationKeys.elevenlabs || config.ELEVENLABS_API_KEY,
  cartesia: organizationKeys.cartesia || config.CARTESIA_API_KEY,
  openai: organizationKeys.openai || config.LLM_API_KEY,
});

/**
 * The agent's choice (`workflow_configurations`), else the service default (STT_PROVIDER,
 * TTS_PROVIDER), else the first provider with a key, else the offline engines (espeak-ng,
 * PocketSphinx), which need none. A provider's key is the organization's own
 * (`loadOrganizationSpeechKeys`) when it stored one, else the environment's. Naming a keyed
 * provider that has neither is an error.
 */
export function selectSpeech(
  workflowConfigurations: unknown,
  config: SpeechConfig,
  organizationKeys: OrganizationSpeechKeys = {},
): SpeechSelection {
  const parsed = SpeechChoice.safeParse(workflowConfigurations ?? {});
  if (!parsed.success) {
    throw new SpeechProviderError('speech', 'configuration', `workflow_configurations: ${parsed.error.message}`);
  }
  const choice = parsed.data;
  const keys = keysOf(config, organizationKeys);
  const hasKey = (provider: SttProvider | TtsProvider): boolean =>
    !isKeyedSpeechProvider(provider) || Boolean(keys[provider]);
  const pick = <P extends SttProvider | TtsProvider>(named: P | undefined, all: readonly P[]): P => {
    if (named) {
      if (!hasKey(named)) {
        throw new SpeechProviderError(
          named,
          'configuration',
          "chosen but its API key is not set (neither the organization's nor the environment's)",
        );
      }
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
    stt: buildStt(sttName, config, keys),
    tts: buildTts(ttsName, config, keys),
    voice: choice.voice,
    keyterms,
  };
}

function buildStt(name: SttProvider, config: SpeechConfig, keys: SpeechKeys): SpeechToText {
  if (name === 'pocketsphinx') return new PocketsphinxStt();
  const key = keys[name] ?? '';
  if (name === 'deepgram') {
    return new DeepgramStt({ apiKey: key, baseUrl: config.DEEPGRAM_BASE_URL, model: config.DEEPGRAM_MODEL });
  }
  return new OpenAiStt({ apiKey: key, baseUrl: config.LLM_BASE_URL, sttModel: config.OPENAI_STT_MODEL });
}

function buildTts(name: TtsProvider, config: SpeechConfig, keys: SpeechKeys): TextToSpeech {
  if (name === 'espeak') return new EspeakTts();
  const key = keys[name] ?? '';
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
