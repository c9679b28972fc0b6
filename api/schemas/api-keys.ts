import { API_KEY_SCOPES } from '../auth/scopes';
import { z } from '../zod';
import { DateTimeString, IdParam, name, queryBoolean } from './common';

export const ApiKeyIdParams = z.object({ id: IdParam });

const Scope = z.enum(API_KEY_SCOPES).openapi({
  description:
    '`read`: every GET. `calls`: also placing calls and creating and running campaigns. `admin`: everything.',
});

export const CreateApiKeyRequest = z
  .object({ name: name(255), scope: Scope.default('admin') })
  .openapi('CreateApiKeyRequest');

export const CreatedApiKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    scope: Scope,
    key_prefix: z.string(),
    api_key: z.string().openapi({ description: 'The full key: returned only here, never retrievable again.' }),
    created_at: DateTimeString,
  })
  .openapi('CreatedApiKey');

export const ApiKeyListItem = z
  .object({
    id: z.number().int(),
    name: z.string(),
    scope: Scope,
    key_prefix: z.string().openapi({ description: 'The first 8 characters of the key.' }),
    is_active: z.boolean(),
    created_at: DateTimeString,
    last_used_at: DateTimeString.nullable().openapi({ description: 'Updated at most once a minute.' }),
    archived_at: DateTimeString.nullable(),
  })
  .openapi('ApiKey');

export const ListApiKeysQuery = z.object({
  include_archived: queryBoolean(false).openapi({ description: '`true` includes archived keys.' }),
});
