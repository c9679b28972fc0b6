import { z } from 'zod';
import type { CredentialType } from '../../entities/credential.entity';

export type { CredentialType };
export const CREDENTIAL_TYPES = [
  'api_key',
  'bearer_token',
  'basic_auth',
  'custom_header',
] as const satisfies readonly CredentialType[];

/** An HTTP header name (an RFC 9110 token). */
export const HeaderName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "A header name is letters, digits and !#$%&'*+.^_`|~-, without spaces");

/** No line breaks or other control characters (NUL included), which would split a header. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const HEADER_SAFE = /^[^\u0000-\u001f\u007f]*$/;
/** The same, and no ':' (RFC 7617: a user-id holding ':' cannot be told from the password). */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const USER_ID = /^[^:\u0000-\u001f\u007f]*$/;

/** A value sent in a header; one pattern, so the API document states the whole rule. */
const headerSafe = (
  max: number,
  pattern = HEADER_SAFE,
  rule = 'must not contain line breaks or other control characters',
) => z.string().min(1).max(max).regex(pattern, rule);

/** A secret: sealed at rest, answered masked. */
const Secret = headerSafe(4096);

/** Each type's fields, as stored once opened and as a create sends them; other keys are refused. */
export const CREDENTIAL_DATA = {
  api_key: z.strictObject({ header_name: HeaderName.default('X-API-Key'), api_key: Secret }),
  bearer_token: z.strictObject({ token: Secret }),
  basic_auth: z.strictObject({
    username: headerSafe(256, USER_ID, 'must not contain ":", line breaks or other control characters'),
    password: Secret,
  }),
  custom_header: z.strictObject({ header_name: HeaderName, header_value: Secret }),
} satisfies Record<CredentialType, z.ZodObject>;

export type CredentialData<T extends CredentialType = CredentialType> = z.output<(typeof CREDENTIAL_DATA)[T]>;

/** Which fields of each type are secrets (sealed, masked); the others are shown as stored. */
export const CREDENTIAL_FIELDS: Record<CredentialType, { fields: { name: string; sensitive: boolean }[] }> = {
  api_key: {
    fields: [
      { name: 'header_name', sensitive: false },
      { name: 'api_key', sensitive: true },
    ],
  },
  bearer_token: { fields: [{ name: 'token', sensitive: true }] },
  basic_auth: {
    fields: [
      { name: 'username', sensitive: false },
      { name: 'password', sensitive: true },
    ],
  },
  custom_header: {
    fields: [
      { name: 'header_name', sensitive: false },
      { name: 'header_value', sensitive: true },
    ],
  },
};

/** A credential in clear, as an executor (a webhook delivery, a tool call) uses it; never for a response or a log. */
export type OpenCredential = {
  [T in CredentialType]: { uuid: string; name: string; credential_type: T; credential_data: CredentialData<T> };
}[CredentialType];

/**
 * The request headers that authenticate with the credential: `api_key` and `custom_header` send
 * their header, `bearer_token` sends `Authorization: Bearer`, `basic_auth` `Authorization: Basic`.
 */
export function credentialHeaders(credential: OpenCredential): Record<string, string> {
  switch (credential.credential_type) {
    case 'api_key':
      return { [credential.credential_data.header_name]: credential.credential_data.api_key };
    case 'bearer_token':
      return { Authorization: `Bearer ${credential.credential_data.token}` };
    case 'basic_auth': {
      const { username, password } = credential.credential_data;
      return { Authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}` };
    }
    case 'custom_header':
      return { [credential.credential_data.header_name]: credential.credential_data.header_value };
  }
}
