import type { z } from 'zod';
import {
  SPEECH_CREDENTIAL_NOT_FOUND as NOT_FOUND,
  SpeechCredentials,
  type SpeechCredentialView,
} from '../../domain/credentials/speech-credentials';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { SuccessResponse } from '../schemas/common';
import {
  PutSpeechCredentialRequest,
  SpeechCredentialList,
  SpeechCredentialParams,
  SpeechCredential as SpeechCredentialResponse,
  SpeechCredentialProvider,
} from '../schemas/speech-credentials';

const PATH = '/organizations/speech-credentials';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['speech'];

export function createSpeechCredentialRoutes({ config, dataSource }: ApiDeps): Route[] {
  const credentials = new SpeechCredentials(dataSource, loadSecrets(config));
  const answer = (view: SpeechCredentialView): z.output<typeof SpeechCredentialResponse> => ({
    ...view,
    provider: SpeechCredentialProvider.parse(view.provider),
  });

  return [
    defineRoute(
      {
        method: 'get',
        path: PATH,
        operationId: 'listSpeechCredentials',
        summary: "The organization's speech-provider API keys",
        description:
          'Keys the organization stored for itself, masked. A call uses them before the service-wide keys ' +
          '(DEEPGRAM_API_KEY, ELEVENLABS_API_KEY, CARTESIA_API_KEY, LLM_API_KEY), which are never listed here.',
        tags,
        security,
        responses: { 200: { description: 'Keys (masked), sorted by provider', schema: SpeechCredentialList } },
      },
      async (ctx, { auth }) => {
        ctx.body = { speech_credentials: (await credentials.list(auth)).map(answer) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${PATH}/{provider}`,
        operationId: 'getSpeechCredential',
        summary: "The organization's API key for one speech provider",
        description: 'The stored key of the provider, masked. 404 when none is stored.',
        tags,
        security,
        params: SpeechCredentialParams,
        responses: {
          200: { description: 'The key (masked)', schema: SpeechCredentialResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = answer(await credentials.get(auth, params.provider));
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: `${PATH}/{provider}`,
        operationId: 'putSpeechCredential',
        summary: "Store or replace the organization's API key for a speech provider",
        description:
          'The key is encrypted at rest (AES-256-GCM under SECRETS_KEY) and answered masked; it is not checked ' +
          'with the provider (a refused key fails the call that uses it). Sending back the masked value of the ' +
          'stored key changes nothing. Any other value containing `*` is a 422, so a mask is never stored as a key. ' +
          'An unknown provider is a 422.',
        tags,
        security,
        params: SpeechCredentialParams,
        body: PutSpeechCredentialRequest,
        responses: {
          200: { description: 'Replaced, or unchanged (the mask was sent back)', schema: SpeechCredentialResponse },
          201: {
            description: 'Stored: the organization had no key for this provider',
            schema: SpeechCredentialResponse,
          },
        },
      },
      async (ctx, { params, body, auth }) => {
        const { credential, created } = await credentials.put(auth, params.provider, body.api_key);
        ctx.status = created ? 201 : 200;
        ctx.body = answer(credential);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${PATH}/{provider}`,
        operationId: 'deleteSpeechCredential',
        summary: "Delete the organization's API key for a speech provider",
        description: "The organization's calls fall back to the service-wide key, if there is one.",
        tags,
        security,
        params: SpeechCredentialParams,
        responses: {
          200: { description: 'Deleted', schema: SuccessResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        await credentials.delete(auth, params.provider);
        ctx.body = { success: true, message: 'Speech provider API key deleted' };
      },
    ),
  ];
}
