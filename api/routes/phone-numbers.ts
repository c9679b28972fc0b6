import type { EntityManager } from 'typeorm';
import { Agent, PhoneNumber, TelephonyConfiguration } from '../../entities';
import { ProviderError, type ProviderSync } from '../../telephony/provider';
import type { AuthContext, ApiDeps } from '../context';
import { isUniqueViolation } from '../../entities/db-errors';
import { ConflictError, InvalidError, NotFoundError, UpstreamError } from '../../domain/errors';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  ConfigIdParams,
  CreatePhoneNumberRequest,
  DeletedPhoneNumber,
  PhoneNumber as PhoneNumberResponse,
  PhoneNumberList,
  PhoneNumberParams,
  UpdatePhoneNumberRequest,
} from '../schemas/telephony';
import { normalizeAddress } from '../../domain/telephony/phone-address';
import { phoneNumberViewOf, phoneNumberViews } from '../../domain/telephony/phone-number-views';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';
import { findOwned } from '../tenancy';

const CONFIG_NOT_FOUND = 'Telephony configuration not found';
const NUMBER_NOT_FOUND = 'Phone number not found';
const ADDRESS_CONSTRAINT = 'phone_numbers_organization_id_address_normalized_key';
const UNCHANGED: ProviderSync = { ok: true, message: 'Inbound routing unchanged: the provider was not contacted.' };
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['telephony'];
const BASE = '/organizations/telephony-configs/{config_id}/phone-numbers';

export function createPhoneNumberRoutes(deps: ApiDeps): Route[] {
  const { dataSource } = deps;
  const configurations = dataSource.getRepository(TelephonyConfiguration);
  const numbers = dataSource.getRepository(PhoneNumber);
  const agents = dataSource.getRepository(Agent);
  const telephony = createTelephonyServices(deps);
  const quotas = new Quotas(deps.config);

  const findNumber = async (configuration: TelephonyConfiguration, id: number): Promise<PhoneNumber> => {
    const number = await numbers.findOneBy({
      id,
      telephonyConfigurationId: configuration.id,
      organizationId: configuration.organizationId,
    });
    if (!number) throw new NotFoundError(NUMBER_NOT_FOUND);
    return number;
  };

  const requireAgent = async (id: number, caller: AuthContext): Promise<void> => {
    if (!(await agents.existsBy({ id, organizationId: caller.organizationId }))) {
      throw new NotFoundError(`Workflow with id ${id} not found`);
    }
  };

  /** Where the number's inbound calls should go now: nowhere unless it is active and bound. */
  const inboundTarget = (configuration: TelephonyConfiguration, number: PhoneNumber): string | null =>
    number.isActive && number.inboundWorkflowId !== null ? telephony.inboundUrl(configuration.provider) : null;

  const pushInbound = async (
    configuration: TelephonyConfiguration,
    number: PhoneNumber,
    url: string | null,
  ): Promise<ProviderSync> => {
    try {
      return await telephony.adapterFor(configuration).configureInbound(number.addressNormalized, url);
    } catch (error) {
      if (error instanceof ProviderError) return { ok: false, message: error.message };
      throw error;
    }
  };

  /** Runs `write` in a transaction, first clearing the configuration's default caller when `makeDefault`. */
  const withDefaultCaller = <T>(
    configurationId: number,
    makeDefault: boolean,
    write: (manager: EntityManager) => Promise<T>,
  ): Promise<T> =>
    dataSource.transaction(async (manager) => {
      if (makeDefault) {
        await manager.update(
          PhoneNumber,
          { telephonyConfigurationId: configurationId, isDefaultCallerId: true },
          { isDefaultCallerId: false },
        );
      }
      return write(manager);
    });

  return [
    defineRoute(
      {
        method: 'get',
        path: BASE,
        operationId: 'listPhoneNumbers',
        summary: "A configuration's phone numbers, oldest first",
        description:
          "Every phone number of the telephony configuration, oldest first. 404 when the configuration is unknown or another organization's.",
        tags,
        security,
        params: ConfigIdParams,
        responses: {
          200: { description: 'Phone numbers', schema: PhoneNumberList },
          404: errorResponse(CONFIG_NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        const rows = await numbers.find({
          where: { telephonyConfigurationId: configuration.id },
          order: { createdAt: 'ASC', id: 'ASC' },
        });
        ctx.body = { phone_numbers: await phoneNumberViews(dataSource, rows) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: BASE,
        operationId: 'createPhoneNumber',
        summary: 'Add a phone number to a configuration',
        description:
          'PSTN numbers are stored in E.164. With an inbound agent, the provider is pointed at Switchboard and ' +
          '`provider_sync` reports how that went (`ok: false` is a warning: the number is saved).',
        tags,
        security,
        params: ConfigIdParams,
        body: CreatePhoneNumberRequest,
        responses: {
          201: { description: 'Created', schema: PhoneNumberResponse },
          404: errorResponse(`${CONFIG_NOT_FOUND}, or the inbound workflow is not found`),
          409: errorResponse(
            `A phone number with this address already exists in the org, or ${quotaBreach('phone_numbers')}`,
          ),
        },
      },
      async (ctx, { params, body, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        const { addressNormalized, addressType } = normalizeAddress(body.address, body.country_code);
        if (body.inbound_workflow_id) await requireAgent(body.inbound_workflow_id, auth);
        const row = numbers.create({
          organizationId: auth.organizationId,
          telephonyConfigurationId: configuration.id,
          address: body.address,
          addressNormalized,
          addressType,
          countryCode: body.country_code ?? null,
          label: body.label ?? null,
          inboundWorkflowId: body.inbound_workflow_id ?? null,
          isActive: body.is_active,
          isDefaultCallerId: body.is_default_caller_id,
          extraMetadata: body.extra_metadata,
        });
        let saved: PhoneNumber;
        try {
          saved = await withDefaultCaller(configuration.id, row.isDefaultCallerId, async (manager) => {
            const inserted = await manager.save(row);
            await quotas.claim(manager, 'phone_numbers', auth.organizationId);
            return inserted;
          });
        } catch (error) {
          if (isUniqueViolation(error, ADDRESS_CONSTRAINT)) {
            throw new ConflictError('A phone number with this address already exists in the org.');
          }
          throw error;
        }
        const target = inboundTarget(configuration, saved);
        const providerSync = target ? await pushInbound(configuration, saved, target) : undefined;
        ctx.status = 201;
        ctx.body = await phoneNumberViewOf(dataSource, saved, providerSync);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${BASE}/{phone_number_id}`,
        operationId: 'getPhoneNumber',
        summary: 'A phone number',
        description: "One phone number of the configuration. 404 when either is unknown or another organization's.",
        tags,
        security,
        params: PhoneNumberParams,
        responses: {
          200: { description: 'The phone number', schema: PhoneNumberResponse },
          404: errorResponse(NUMBER_NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        ctx.body = await phoneNumberViewOf(dataSource, await findNumber(configuration, params.phone_number_id));
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: `${BASE}/{phone_number_id}`,
        operationId: 'updatePhoneNumber',
        summary: 'Update a phone number',
        description:
          'Partial. `address` cannot change. `clear_inbound_workflow: true` removes the inbound binding; ' +
          '`inbound_workflow_id: null` alone changes nothing. When the inbound routing changes (binding or ' +
          '`is_active`), the provider is updated and `provider_sync` reports how that went.',
        tags,
        security,
        params: PhoneNumberParams,
        body: UpdatePhoneNumberRequest,
        responses: {
          200: { description: 'Updated, with `provider_sync`', schema: PhoneNumberResponse },
          400: errorResponse('The address cannot be changed'),
          404: errorResponse(`${NUMBER_NOT_FOUND}, or the inbound workflow is not found`),
        },
      },
      async (ctx, { params, body, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        const number = await findNumber(configuration, params.phone_number_id);
        if (body.address !== undefined && body.address.trim() !== number.address) {
          throw new InvalidError('The address of a phone number cannot be changed; delete it and add the new one.');
        }
        const before = inboundTarget(configuration, number);
        if (body.clear_inbound_workflow) {
          number.inboundWorkflowId = null;
        } else if (body.inbound_workflow_id) {
          await requireAgent(body.inbound_workflow_id, auth);
          number.inboundWorkflowId = body.inbound_workflow_id;
        }
        if (body.label !== undefined) number.label = body.label;
        if (body.country_code !== undefined) number.countryCode = body.country_code;
        if (body.is_active !== undefined) number.isActive = body.is_active;
        if (body.extra_metadata !== undefined) number.extraMetadata = body.extra_metadata;
        const saved = await numbers.save(number);
        const after = inboundTarget(configuration, saved);
        const providerSync = before === after ? UNCHANGED : await pushInbound(configuration, saved, after);
        ctx.body = await phoneNumberViewOf(dataSource, saved, providerSync);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${BASE}/{phone_number_id}`,
        operationId: 'deletePhoneNumber',
        summary: 'Delete a phone number',
        description:
          'A number bound to an inbound agent is first detached at the provider; if that fails the answer is ' +
          '502 with the provider message and nothing is deleted.',
        tags,
        security,
        params: PhoneNumberParams,
        responses: {
          200: { description: 'Deleted', schema: DeletedPhoneNumber },
          404: errorResponse(NUMBER_NOT_FOUND),
          502: errorResponse('The provider refused to detach the number'),
        },
      },
      async (ctx, { params, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        const number = await findNumber(configuration, params.phone_number_id);
        let providerSync: ProviderSync = { ok: true, message: 'No inbound binding: the provider was not contacted.' };
        if (inboundTarget(configuration, number)) {
          providerSync = await pushInbound(configuration, number, null);
          if (!providerSync.ok) throw new UpstreamError(providerSync.message);
        }
        await numbers.delete({ id: number.id });
        ctx.body = { message: 'Phone number deleted', provider_sync: providerSync };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${BASE}/{phone_number_id}/set-default-caller`,
        operationId: 'setDefaultCallerId',
        summary: "Make this number the configuration's default caller id",
        description: 'The previous default of the configuration is cleared in the same transaction.',
        tags,
        security,
        params: PhoneNumberParams,
        responses: {
          200: { description: 'The new default', schema: PhoneNumberResponse },
          404: errorResponse(NUMBER_NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        const configuration = await findOwned(configurations, params.config_id, auth, CONFIG_NOT_FOUND);
        const number = await findNumber(configuration, params.phone_number_id);
        const updated = await withDefaultCaller(configuration.id, true, async (manager) => {
          await manager.update(PhoneNumber, { id: number.id }, { isDefaultCallerId: true });
          return manager.findOneByOrFail(PhoneNumber, { id: number.id });
        });
        ctx.body = await phoneNumberViewOf(dataSource, updated);
      },
    ),
  ];
}
