import type { z } from 'zod';
import type { ApiKey } from '../../entities';
import { generateApiKey } from '../auth/api-key-format';
import type { ApiDeps } from '../context';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  ApiKeyIdParams,
  ApiKeyList,
  type ApiKeyListItem,
  CreateApiKeyRequest,
  CreatedApiKey,
  ListApiKeysQuery,
} from '../schemas/api-keys';
import { SuccessResponse } from '../schemas/common';
import { API_KEY_NOT_FOUND, ApiKeys } from '../../domain/accounts/api-keys';

const listItem = (key: ApiKey): z.output<typeof ApiKeyListItem> => ({
  id: key.id,
  name: key.name,
  scope: key.scope,
  key_prefix: key.keyPrefix,
  is_active: key.isActive,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  archived_at: key.archivedAt?.toISOString() ?? null,
});

export function createApiKeyRoutes({ dataSource, config }: ApiDeps): Route[] {
  const apiKeys = new ApiKeys(dataSource, new Quotas(config));

  return [
    defineRoute(
      {
        method: 'post',
        path: '/user/api-keys',
        operationId: 'createApiKey',
        summary: 'Create an API key for the organization',
        description:
          'The full key is in this response only; afterwards just its first 8 characters are shown. `scope` ' +
          'limits what the key may do (`read`, `calls` or `admin`, the default); creating keys needs `admin`.',
        tags: ['api-keys'],
        security: ['ApiKey', 'SessionToken'],
        body: CreateApiKeyRequest,
        responses: {
          201: { description: 'Created', schema: CreatedApiKey },
          409: errorResponse(quotaBreach('api_keys')),
        },
      },
      async (ctx, { body, auth }) => {
        const { key, prefix, hash } = generateApiKey();
        const saved = await apiKeys.create(auth, {
          name: body.name,
          scope: body.scope,
          keyPrefix: prefix,
          keyHash: hash,
        });
        const created: z.output<typeof CreatedApiKey> = {
          id: saved.id,
          name: saved.name,
          scope: saved.scope,
          key_prefix: saved.keyPrefix,
          api_key: key,
          created_at: saved.createdAt.toISOString(),
        };
        ctx.status = 201;
        ctx.body = created;
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/user/api-keys',
        operationId: 'listApiKeys',
        summary: "The organization's API keys, newest first",
        description:
          "The organization's API keys (prefix and dates, never the key itself), newest first; archived keys only with `include_archived=true`.",
        tags: ['api-keys'],
        security: ['ApiKey', 'SessionToken'],
        query: ListApiKeysQuery,
        responses: { 200: { description: 'API keys (never the full key)', schema: ApiKeyList } },
      },
      async (ctx, { query, auth }) => {
        const keys = await apiKeys.list(auth, query.include_archived);
        ctx.body = keys.map(listItem);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/user/api-keys/{id}',
        operationId: 'archiveApiKey',
        summary: 'Archive an API key',
        description:
          'The key stops working at once and for good: archiving is final (a leaked key cannot be brought back ' +
          'by whoever holds another key). It stays listed with `include_archived=true`.',
        tags: ['api-keys'],
        security: ['ApiKey', 'SessionToken'],
        params: ApiKeyIdParams,
        responses: {
          200: { description: 'Archived', schema: SuccessResponse },
          404: errorResponse(API_KEY_NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        await apiKeys.archive(auth, params.id);
        ctx.body = { success: true, message: 'API key archived successfully' };
      },
    ),
  ];
}
