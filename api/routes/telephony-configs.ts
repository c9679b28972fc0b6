import type { ApiDeps } from '../context';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  ConfigIdParams,
  DeletedTelephonyConfiguration,
  ProviderMetadataList,
  TelephonyConfigurationList,
  TelephonyConfiguration as ConfigurationResponse,
  telephonyConfigRequests,
} from '../schemas/telephony';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';
import {
  CONFIGURATION_NOT_FOUND as NOT_FOUND,
  TelephonyConfigurations,
} from '../../domain/telephony/telephony-configurations';

const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['telephony'];

export function createTelephonyConfigRoutes(deps: ApiDeps): Route[] {
  const telephony = createTelephonyServices(deps);
  const configurations = new TelephonyConfigurations(deps.dataSource, telephony, new Quotas(deps.config));
  const { CreateTelephonyConfigRequest, UpdateTelephonyConfigRequest } = telephonyConfigRequests(telephony.providers);

  return [
    defineRoute(
      {
        method: 'get',
        path: '/organizations/telephony-providers/metadata',
        operationId: 'listTelephonyProviders',
        summary: 'The telephony providers and the fields each needs',
        description:
          'The providers this deployment offers and, for each, the configuration fields a create takes (which are required and which are secret).',
        tags,
        security,
        responses: { 200: { description: 'Providers, sorted by name', schema: ProviderMetadataList } },
      },
      (ctx) => {
        ctx.body = {
          providers: telephony.providers.map((definition) => ({
            provider: definition.name,
            display_name: definition.displayName,
            docs_url: definition.docsUrl,
            connectivity: definition.connectivity,
            transfer_modes: [...definition.transferModes],
            fields: definition.fields,
          })),
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/organizations/telephony-configs',
        operationId: 'listTelephonyConfigs',
        summary: "The organization's telephony configurations, oldest first",
        description: 'Every telephony configuration of the organization, oldest first, with secrets masked.',
        tags,
        security,
        responses: { 200: { description: 'Configurations (secrets masked)', schema: TelephonyConfigurationList } },
      },
      async (ctx, { auth }) => {
        ctx.body = { configurations: await configurations.list(auth) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/organizations/telephony-configs',
        operationId: 'createTelephonyConfig',
        summary: 'Create a telephony configuration',
        description: 'Sensitive fields are encrypted at rest and answered masked.',
        tags,
        security,
        body: CreateTelephonyConfigRequest,
        responses: {
          201: { description: 'Created', schema: ConfigurationResponse },
          409: errorResponse(`A configuration of that name exists, or ${quotaBreach('telephony_configurations')}`),
        },
      },
      async (ctx, { body, auth }) => {
        const created = await configurations.create(auth, body);
        ctx.status = 201;
        ctx.body = created;
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/organizations/telephony-configs/{config_id}',
        operationId: 'getTelephonyConfig',
        summary: 'A telephony configuration',
        description:
          "One telephony configuration, with secrets masked. 404 when it is unknown or another organization's.",
        tags,
        security,
        params: ConfigIdParams,
        responses: {
          200: { description: 'The configuration (secrets masked)', schema: ConfigurationResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await configurations.view(auth, params.config_id);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/organizations/telephony-configs/{config_id}',
        operationId: 'updateTelephonyConfig',
        summary: 'Update a telephony configuration',
        description:
          'Partial: only changed fields are needed. A masked secret sent back unchanged keeps the stored one. ' +
          "An update that changes where the secrets are sent (ARI's `ari_endpoint`) must send every secret again, " +
          'otherwise 422 (`type: secret_required`). ' +
          'The provider cannot change (400).',
        tags,
        security,
        params: ConfigIdParams,
        body: UpdateTelephonyConfigRequest,
        responses: {
          200: { description: 'Updated', schema: ConfigurationResponse },
          400: errorResponse('Provider cannot be changed; create a new configuration instead.'),
          404: errorResponse(NOT_FOUND),
          409: errorResponse('A configuration of that name exists'),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await configurations.update(auth, params.config_id, body);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/organizations/telephony-configs/{config_id}',
        operationId: 'deleteTelephonyConfig',
        summary: 'Delete a telephony configuration and its phone numbers',
        description:
          'Refused (409) while any campaign references it. Its numbers are deleted with it, without detaching ' +
          'them at the provider: delete bound numbers first to detach them.',
        tags,
        security,
        params: ConfigIdParams,
        responses: {
          200: { description: 'Deleted', schema: DeletedTelephonyConfiguration },
          404: errorResponse(NOT_FOUND),
          409: errorResponse('Referenced by a campaign'),
        },
      },
      async (ctx, { params, auth }) => {
        await configurations.delete(auth, params.config_id);
        ctx.body = { message: 'Telephony configuration deleted' };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/organizations/telephony-configs/{config_id}/set-default-outbound',
        operationId: 'setDefaultOutboundConfig',
        summary: "Make this the organization's default outbound configuration",
        description: 'The previous default is cleared in the same transaction.',
        tags,
        security,
        params: ConfigIdParams,
        responses: {
          200: { description: 'The new default', schema: ConfigurationResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await configurations.setDefaultOutbound(auth, params.config_id);
      },
    ),
  ];
}
