import { CREDENTIAL_DATA, CREDENTIAL_TYPES } from '../../domain/credentials/credential-types';
import type { CredentialView } from '../../domain/credentials/credentials';
import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME, name, text, type Documents, type SameShape } from './common';

const MASK_NOTE =
  'Answered masked: every character but the last four is `*` (a secret of four characters or fewer is masked whole). ' +
  'Sending the masked value back unchanged keeps the stored secret.';

export const CredentialType = z.enum(CREDENTIAL_TYPES).openapi('CredentialType', {
  description:
    'How the secret authenticates a request: `api_key` sends `header_name: api_key`; `bearer_token` sends ' +
    '`Authorization: Bearer <token>`; `basic_auth` sends `Authorization: Basic base64(username:password)`; ' +
    '`custom_header` sends `header_name: header_value`.',
});

export const ApiKeyCredentialData = CREDENTIAL_DATA.api_key.clone().openapi('ApiKeyCredentialData', {
  description: `\`header_name\` defaults to \`X-API-Key\`. \`api_key\` is the secret. ${MASK_NOTE}`,
  example: { header_name: 'X-API-Key', api_key: 'sk_live_4f9a2c7e81d34b5a' },
});
export const BearerTokenCredentialData = CREDENTIAL_DATA.bearer_token.clone().openapi('BearerTokenCredentialData', {
  description: `\`token\` is the secret. ${MASK_NOTE}`,
  example: { token: 'eyJhbGciOiJIUzI1NiJ9.c3dpdGNoYm9hcmQ.k3Yx' },
});
export const BasicAuthCredentialData = CREDENTIAL_DATA.basic_auth.clone().openapi('BasicAuthCredentialData', {
  description: `\`username\` (without \`:\`) is shown as stored; \`password\` is the secret. ${MASK_NOTE}`,
  example: { username: 'switchboard', password: 'correct-horse-battery' },
});
export const CustomHeaderCredentialData = CREDENTIAL_DATA.custom_header.clone().openapi('CustomHeaderCredentialData', {
  description: `\`header_value\` is the secret. ${MASK_NOTE}`,
  example: { header_name: 'X-Shop-Token', header_value: 'shp_8d0c2b1a9e7f' },
});

const common = {
  name: name().openapi({ description: 'Unique in the organization.', example: 'CRM webhook key' }),
  description: text(2_000).nullish().openapi({ description: 'Free text for people.' }),
};

const variant = <T extends (typeof CREDENTIAL_TYPES)[number], D extends z.ZodObject>(type: T, data: D) =>
  z.object({ ...common, credential_type: z.literal(type), credential_data: data });

export const CreateCredentialRequest = z
  .discriminatedUnion('credential_type', [
    variant('api_key', ApiKeyCredentialData),
    variant('bearer_token', BearerTokenCredentialData),
    variant('basic_auth', BasicAuthCredentialData),
    variant('custom_header', CustomHeaderCredentialData),
  ])
  .openapi('CreateCredentialRequest', {
    description: '`credential_data` holds the fields of `credential_type`.',
    example: {
      name: 'CRM webhook key',
      description: 'Sent to the CRM with every post-call webhook',
      credential_type: 'bearer_token',
      credential_data: { token: 'eyJhbGciOiJIUzI1NiJ9.c3dpdGNoYm9hcmQ.k3Yx' },
    },
  });

export const UpdateCredentialRequest = z
  .object({
    name: common.name.optional(),
    description: common.description,
    credential_type: CredentialType.optional(),
    credential_data: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          'Fields of the type, merged over the stored ones: a field not sent keeps its value, and a secret sent back ' +
          'exactly as its mask keeps the stored secret. Changing `credential_type` needs every field of the new type.',
      }),
  })
  .openapi('UpdateCredentialRequest', {
    description: 'Every field is optional; what is not sent is kept.',
    example: {
      description: 'Rotated on 2 March',
      credential_data: { token: '************************************k3Yx' },
    },
  });

export const CredentialUuidParams = z.object({
  credential_uuid: z.string().max(64).openapi({ example: '0f6f1c52-7d0e-4f3e-9a43-2b8f0c9e5d11' }),
});

const EXAMPLE_CREDENTIAL = {
  uuid: '0f6f1c52-7d0e-4f3e-9a43-2b8f0c9e5d11',
  name: 'CRM webhook key',
  description: 'Sent to the CRM with every post-call webhook',
  credential_type: 'bearer_token',
  credential_data: { token: '************************************k3Yx' },
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const CredentialResponse = z
  .object({
    uuid: z.string().openapi({ description: 'What agent nodes name it by (`credential_uuid`).' }),
    name: z.string(),
    description: z.string().nullable(),
    credential_type: CredentialType,
    credential_data: z.record(z.string(), z.unknown()).openapi({
      description: 'The fields of the type, secrets masked (all but the last four characters are `*`).',
    }),
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('Credential', { example: EXAMPLE_CREDENTIAL });

export const CredentialList = CredentialResponse.array().openapi({
  description: 'Oldest first.',
  example: [EXAMPLE_CREDENTIAL],
});

export const DeletedCredential = z
  .object({ status: z.literal('deleted'), uuid: z.string() })
  .openapi('DeletedCredential', { example: { status: 'deleted', uuid: EXAMPLE_CREDENTIAL.uuid } });

export type CredentialDocuments = Documents<SameShape<z.output<typeof CredentialResponse>, CredentialView>>;
