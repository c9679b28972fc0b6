import { CREDENTIAL_NOT_FOUND, Credentials } from '../../domain/credentials/credentials';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  CreateCredentialRequest,
  CredentialList,
  CredentialResponse,
  CredentialUuidParams,
  DeletedCredential,
  UpdateCredentialRequest,
} from '../schemas/credentials';

const PATH = '/credentials';
const NOT_FOUND = errorResponse(CREDENTIAL_NOT_FOUND);
const NAME_TAKEN = 'A credential of that name exists in the organization';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['credentials'];

export function createCredentialRoutes({ config, dataSource }: ApiDeps): Route[] {
  const credentials = new Credentials(dataSource, loadSecrets(config), new Quotas(config));

  return [
    defineRoute(
      {
        method: 'get',
        path: PATH,
        operationId: 'listCredentials',
        summary: "The organization's credentials, oldest first",
        description: 'Every credential of the organization, oldest first, with its secrets masked.',
        tags,
        security,
        responses: { 200: { description: 'Credentials (secrets masked)', schema: CredentialList } },
      },
      async (ctx, { auth }) => {
        ctx.body = await credentials.list(auth);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: PATH,
        operationId: 'createCredential',
        summary: 'Store a credential',
        description:
          'A named secret that webhook nodes send by naming its `uuid` in `credential_uuid`, so agent definitions ' +
          'never carry it. Its secret fields are encrypted at rest (AES-256-GCM under SECRETS_KEY) and answered masked.',
        tags,
        security,
        body: CreateCredentialRequest,
        responses: {
          201: { description: 'Created (secrets masked)', schema: CredentialResponse },
          409: errorResponse(`${NAME_TAKEN}, or ${quotaBreach('credentials')}`),
        },
      },
      async (ctx, { body, auth }) => {
        ctx.status = 201;
        ctx.body = await credentials.create(auth, body);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${PATH}/{credential_uuid}`,
        operationId: 'getCredential',
        summary: 'A credential',
        description: "One credential, secrets masked. 404 when it is unknown or another organization's.",
        tags,
        security,
        params: CredentialUuidParams,
        responses: {
          200: { description: 'The credential (secrets masked)', schema: CredentialResponse },
          404: NOT_FOUND,
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await credentials.get(auth, params.credential_uuid);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: `${PATH}/{credential_uuid}`,
        operationId: 'updateCredential',
        summary: 'Update a credential',
        description:
          'Fields not sent keep their value. `credential_data` is merged over the stored fields, and a secret sent ' +
          'back exactly as its mask keeps the stored secret (any other value replaces it). Changing ' +
          '`credential_type` needs every field of the new type. Deliveries made after the update send the new value.',
        tags,
        security,
        params: CredentialUuidParams,
        body: UpdateCredentialRequest,
        responses: {
          200: { description: 'The credential (secrets masked)', schema: CredentialResponse },
          404: NOT_FOUND,
          409: errorResponse(NAME_TAKEN),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await credentials.update(auth, params.credential_uuid, body);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${PATH}/{credential_uuid}`,
        operationId: 'deleteCredential',
        summary: 'Delete a credential',
        description:
          "Deletes it for good. 409 while the current version of one of the organization's agents names it " +
          '(the detail lists them); deliveries of earlier calls that still name it are refused.',
        tags,
        security,
        params: CredentialUuidParams,
        responses: {
          200: { description: 'Deleted', schema: DeletedCredential },
          404: NOT_FOUND,
          409: errorResponse('An agent uses the credential'),
        },
      },
      async (ctx, { params, auth }) => {
        await credentials.delete(auth, params.credential_uuid);
        ctx.body = { status: 'deleted', uuid: params.credential_uuid };
      },
    ),
  ];
}
