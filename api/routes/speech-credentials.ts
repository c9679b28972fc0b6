import type { z } from 'zod';
import { SpeechCredential } from '../../entities';
import { maskSecret } from '../../telephony/credentials';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { NotFoundError, ValidationError } from '../../domain/errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { SuccessResponse } from '../schemas/common';
import {
  PutSpeechCredentialRequest,
  SpeechCredentialList,
  SpeechCredentialParams,
  SpeechCredential as SpeechCredentialResponse,
  SpeechCredentialProvider,
} from '../schemas/speech-credentials';

const NOT_FOUND = 'No API key is stored for this speech provider';
const PATH = '/organizations/speech-credentials';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['speech'];

export function createSpeechCredentialRoutes({ config, dataSource }: ApiDeps): Route[] {
  const credentials = dataSource.getRepository(SpeechCredential);
  const secrets = loadSecrets(config);

  const view = (row: SpeechCredential): z.output<typeof SpeechCredentialResponse> => ({
    provider: SpeechCredentialProvider.parse(row.provider),
    api_key: maskSecret(secrets.open(row.encryptedApiKey)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  });
  const findStored = (organizationId: number, provider: string) => credentials.findOneBy({ organizationId, provider });

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
        const rows = await credentials.find({
          where: { organizationId: auth.organizationId },
          order: { provider: 'ASC' },
        });
        ctx.body = { speech_credentials: rows.map(view) };
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
        const row = await findStored(auth.organizationId, params.provider);
        if (!row) throw new NotFoundError(NOT_FOUND);
        ctx.body = view(row);
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
        const { organizationId } = auth;
        const stored = await findStored(organizationId, params.provider);
        if (body.api_key.includes('*')) {
          if (stored && body.api_key === maskSecret(secrets.open(stored.encryptedApiKey))) {
            ctx.body = view(stored);
            return;
          }
          throw new ValidationError([
            {
              loc: ['body', 'api_key'],
              msg: stored
                ? 'This is not the mask of the stored key; send the full key to replace it.'
                : 'This looks like a masked key and no key is stored for this provider; send the full key.',
              type: 'value_error',
            },
          ]);
        }
        // An upsert: two concurrent first PUTs both succeed, the later one's key is kept.
        await credentials.upsert(
          { organizationId, provider: params.provider, encryptedApiKey: secrets.seal(body.api_key) },
          ['organizationId', 'provider'],
        );
        ctx.status = stored ? 200 : 201;
        ctx.body = view(await credentials.findOneByOrFail({ organizationId, provider: params.provider }));
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
        const { affected } = await credentials.delete({
          organizationId: auth.organizationId,
          provider: params.provider,
        });
        if (!affected) throw new NotFoundError(NOT_FOUND);
        ctx.body = { success: true, message: 'Speech provider API key deleted' };
      },
    ),
  ];
}
