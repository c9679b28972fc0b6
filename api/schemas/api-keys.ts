import { API_KEY_SCOPES } from '../auth/scopes';
import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME, IdParam, name, queryBoolean } from './common';

export const ApiKeyIdParams = z.object({ id: IdParam.openapi({ example: 9 }) });

const Scope = z.enum(API_KEY_SCOPES).openapi({
  description:
    '`read`: every GET. `calls`: also placing calls and creating and running campaigns. `admin`: everything.',
});

export const CreateApiKeyRequest = z
  .object({ name: name(255), scope: Scope.default('admin') })
  .openapi('CreateApiKeyRequest', { example: { name: 'CRM integration', scope: 'calls' } });

export const CreatedApiKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    scope: Scope,
    key_prefix: z.string(),
    api_key: z.string().openapi({ description: 'The full key: returned only here, never retrievable again.' }),
    created_at: DateTimeString,
  })
  .openapi('CreatedApiKey', {
    example: {
      id: 9,
      name: 'CRM integration',
      scope: 'calls',
      key_prefix: 'sbk_Q3vN',
      api_key: 'sbk_Q3vN8rT1xWmZ5kP0aYcL7dF2gH4jS6uB9eR1tV3nM8o',
      created_at: EXAMPLE_TIME,
    },
  });

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

export const ApiKeyList = ApiKeyListItem.array().openapi({
  example: [
    {
      id: 9,
      name: 'CRM integration',
      scope: 'calls',
      key_prefix: 'sbk_Q3vN',
      is_active: true,
      created_at: EXAMPLE_TIME,
      last_used_at: '2026-03-02T16:20:00.000Z',
      archived_at: null,
    },
  ],
});

export const ListApiKeysQuery = z.object({
  include_archived: queryBoolean(false).openapi({ description: '`true` includes archived keys.' }),
});
