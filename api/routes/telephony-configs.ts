import { Campaign, TelephonyConfiguration } from '../../entities';
import { mergeUpdate, openCredentials, sealCredentials, secretsFollowingNewAddress } from '../../telephony/credentials';
import type { ApiDeps } from '../context';
import { isUniqueViolation } from '../../entities/db-errors';
import { ConflictError, InvalidError, ValidationError } from '../../domain/errors';
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
import { findOwned } from '../tenancy';
import { toValidationIssues } from '../../domain/validation-issues';

const NOT_FOUND = 'Telephony configuration not found';
const NAME_CONSTRAINT = 'telephony_configurations_organization_id_name_key';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['telephony'];

const duplicateName = (name: string) =>
  new ConflictError(
    `A telephony configuration named '${name}' already exists in this organization. Pick a different name.`,
  );

export function createTelephonyConfigRoutes(deps: ApiDeps): Route[] {
  const { dataSource } = deps;
  const configurations = dataSource.getRepository(TelephonyConfiguration);
  const telephony = createTelephonyServices(deps);
  const quotas = new Quotas(deps.config);
  const { CreateTelephonyConfigRequest, UpdateTelephonyConfigRequest } = telephonyConfigRequests(telephony.providers);

  /** Saves, turning a taken name into 409. */
  const saveNamed = async (row: TelephonyConfiguration, save: () => Promise<TelephonyConfiguration>) => {
    try {
      return await save();
    } catch (error) {
      if (isUniqueViolation(error, NAME_CONSTRAINT)) throw duplicateName(row.name);
      throw error;
    }
  };

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
        const rows = await configurations.find({
          where: { organizationId: auth.organizationId },
          order: { createdAt: 'ASC', id: 'ASC' },
        });
        ctx.body = { configurations: rows.map((row) => telephony.configurationView(row)) };
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
        const { provider, ...fields } = body.config;
        const definition = telephony.definitionOf({ provider });
        const row = configurations.create({
          organizationId: auth.organizationId,
          name: body.name,
          provider,
          credentials: sealCredentials(
            definition,
            { ...fields, ...definition.serverManaged?.(null) },
            telephony.secrets,
          ),
          isDefaultOutbound: body.is_default_outbound,
          callsPerSecond: body.calls_per_second ?? null,
        });
        const saved = await saveNamed(row, () =>
          dataSource.transaction(async (manager) => {
            if (row.isDefaultOutbound) {
              await manager.update(
                TelephonyConfiguration,
                { organizationId: auth.organizationId, isDefaultOutbound: true },
                { isDefaultOutbound: false },
              );
            }
            const saved = await manager.save(row);
            await quotas.claim(manager, 'telephony_configurations', auth.organizationId);
            return saved;
          }),
        );
        ctx.status = 201;
        ctx.body = telephony.configurationView(saved);
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
        ctx.body = telephony.configurationView(await findOwned(configurations, params.config_id, auth, NOT_FOUND));
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
        const row = await findOwned(configurations, params.config_id, auth, NOT_FOUND);
        if (body.config) {
          const { provider, ...update } = body.config;
          if (provider !== row.provider) {
            throw new InvalidError('Provider cannot be changed; create a new configuration instead.');
          }
          const definition = telephony.definitionOf(row);
          const current = openCredentials(row.credentials, telephony.secrets);
          const following = secretsFollowingNewAddress(definition, current, update);
          if (following) {
            throw new ValidationError(
              following.keptSecrets.map((name) => ({
                loc: ['body', 'config', name],
                msg: `${following.changedField} changes, so ${name} must be sent again: a stored secret is never sent to a new address`,
                type: 'secret_required',
              })),
            );
          }
          const parsed = definition.configSchema.safeParse({
            ...mergeUpdate(definition, current, update),
            ...definition.serverManaged?.(current),
          });
          if (!parsed.success) {
            throw new ValidationError(
              toValidationIssues(parsed.error, 'body').map((issue) => ({
                ...issue,
                loc: ['body', 'config', ...issue.loc.slice(1)],
              })),
            );
          }
          row.credentials = sealCredentials(definition, parsed.data, telephony.secrets);
        }
        if (body.name !== undefined) row.name = body.name;
        if (body.calls_per_second !== undefined) row.callsPerSecond = body.calls_per_second;
        ctx.body = telephony.configurationView(await saveNamed(row, () => configurations.save(row)));
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
        const row = await findOwned(configurations, params.config_id, auth, NOT_FOUND);
        if (await dataSource.getRepository(Campaign).existsBy({ telephonyConfigurationId: row.id })) {
          throw new ConflictError(
            `Telephony configuration ${row.id} is referenced by one or more campaigns and cannot be deleted.`,
          );
        }
        await configurations.delete({ id: row.id });
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
        const row = await findOwned(configurations, params.config_id, auth, NOT_FOUND);
        const updated = await dataSource.transaction(async (manager) => {
          await manager.update(
            TelephonyConfiguration,
            { organizationId: auth.organizationId, isDefaultOutbound: true },
            { isDefaultOutbound: false },
          );
          await manager.update(TelephonyConfiguration, { id: row.id }, { isDefaultOutbound: true });
          return manager.findOneByOrFail(TelephonyConfiguration, { id: row.id });
        });
        ctx.body = telephony.configurationView(updated);
      },
    ),
  ];
}
