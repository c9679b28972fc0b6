import type { ApiDeps } from '../context';
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
import { PHONE_NUMBER_NOT_FOUND as NUMBER_NOT_FOUND, PhoneNumbers } from '../../domain/telephony/phone-numbers';
import {
  CONFIGURATION_NOT_FOUND as CONFIG_NOT_FOUND,
  TelephonyConfigurations,
} from '../../domain/telephony/telephony-configurations';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';

const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['telephony'];
const BASE = '/organizations/telephony-configs/{config_id}/phone-numbers';

export function createPhoneNumberRoutes(deps: ApiDeps): Route[] {
  const telephony = createTelephonyServices(deps);
  const quotas = new Quotas(deps.config);
  const numbers = new PhoneNumbers(
    deps.dataSource,
    telephony,
    new TelephonyConfigurations(deps.dataSource, telephony, quotas),
    quotas,
  );

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
        ctx.body = { phone_numbers: await numbers.list(auth, params.config_id) };
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
        const created = await numbers.create(auth, params.config_id, body);
        ctx.status = 201;
        ctx.body = created;
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
        ctx.body = await numbers.view(auth, params.config_id, params.phone_number_id);
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
        ctx.body = await numbers.update(auth, params.config_id, params.phone_number_id, body);
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
        const providerSync = await numbers.delete(auth, params.config_id, params.phone_number_id);
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
        ctx.body = await numbers.setDefaultCaller(auth, params.config_id, params.phone_number_id);
      },
    ),
  ];
}
