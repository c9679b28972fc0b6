/** The speech providers that need an API key; an organization may store its own key for each. */
export const KEYED_SPEECH_PROVIDERS = ['cartesia', 'deepgram', 'elevenlabs', 'openai'] as const;
export type KeyedSpeechProvider = (typeof KEYED_SPEECH_PROVIDERS)[number];

/** An organization's own API keys, in clear: only for building adapters, never for a response or a log. */
export type OrganizationSpeechKeys = Partial<Record<KeyedSpeechProvider, string>>;

export const isKeyedSpeechProvider = (name: string): name is KeyedSpeechProvider =>
  (KEYED_SPEECH_PROVIDERS as readonly string[]).includes(name);
