import { KEYED_SPEECH_PROVIDERS } from '../../voice/speech/speech-keys';
import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME } from './common';

export const SpeechCredentialProvider = z.enum(KEYED_SPEECH_PROVIDERS).openapi('SpeechCredentialProvider', {
  description:
    'A speech provider that needs an API key. `openai` serves OpenAI speech-to-text and text-to-speech ' +
    "(at `LLM_BASE_URL`), not the conversation's language model.",
});

const EXAMPLE_CREDENTIAL = {
  provider: 'deepgram',
  api_key: '******************************cdef',
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const SpeechCredentialParams = z.object({ provider: SpeechCredentialProvider });

export const PutSpeechCredentialRequest = z
  .object({
    api_key: z
      .string()
      .trim()
      .min(1)
      .max(1024)
      .regex(/^[!-~]*$/, 'An API key is printable ASCII without spaces')
      .openapi({
        description:
          "The provider's API key (surrounding whitespace is trimmed). It is stored encrypted and not checked " +
          'with the provider. The masked value a GET answers keeps the stored key; any other value with `*` ' +
          'in it is refused, so a mask is never stored as a key.',
        example: 'sk_0123456789abcdef0123456789abcdef',
      }),
  })
  .openapi('PutSpeechCredentialRequest', { example: { api_key: 'sk_0123456789abcdef0123456789abcdef' } });

export const SpeechCredential = z
  .object({
    provider: SpeechCredentialProvider,
    api_key: z.string().openapi({
      description: 'Masked: all but the last four characters are `*` (a key of four or fewer is masked whole).',
      example: '******************************cdef',
    }),
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('SpeechCredential', { example: EXAMPLE_CREDENTIAL });

export const SpeechCredentialList = z
  .object({ speech_credentials: z.array(SpeechCredential) })
  .openapi('SpeechCredentialList', {
    description: 'Sorted by provider; providers without a stored key are absent.',
    example: { speech_credentials: [EXAMPLE_CREDENTIAL] },
  });
