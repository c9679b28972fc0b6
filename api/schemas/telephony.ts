import { isSupportedCountry } from 'libphonenumber-js';
import type { ProviderDefinition } from '../../telephony/provider';
import { z } from '../zod';
import { BodyId, DateTimeString, EXAMPLE_TIME, IdParam, name, text } from './common';
import { JSON_LIMITS } from '../../domain/limits';
import { boundedJsonObject, jsonBounds } from './limits';
import type { PhoneNumberView } from '../../domain/telephony/types';
import type { Documents, SameShape } from './common';

export const ConfigIdParams = z.object({ config_id: IdParam.openapi({ example: 2 }) });
export const PhoneNumberParams = ConfigIdParams.extend({ phone_number_id: IdParam.openapi({ example: 5 }) });

const ConfigurationName = name(64);

const EXAMPLE_CONFIGURATION = {
  id: 2,
  name: 'Twilio production',
  provider: 'twilio',
  is_default_outbound: true,
  calls_per_second: null,
  effective_calls_per_second: 1,
  credentials: {
    account_sid: '******************************1234',
    auth_token: '****************************abcd',
    amd_enabled: false,
  },
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const ProviderFieldDescriptor = z
  .object({
    name: z.string(),
    label: z.string(),
    type: z.enum(['text', 'password', 'textarea', 'number', 'boolean', 'select']),
    description: z.string(),
    placeholder: z.string(),
    required: z.boolean(),
    sensitive: z.boolean().openapi({ description: 'Masked in responses and encrypted at rest.' }),
  })
  .openapi('ProviderFieldDescriptor');

export const ProviderMetadataList = z
  .object({
    providers: z.array(
      z.object({
        provider: z.string(),
        display_name: z.string(),
        docs_url: z.string(),
        connectivity: z.enum(['api', 'sip']),
        transfer_modes: z.array(z.enum(['blind', 'warm'])).openapi({
          description: 'The call transfer modes a `transfer_call` tool may use with this provider (empty: none).',
        }),
        fields: z.array(ProviderFieldDescriptor),
      }),
    ),
  })
  .openapi('ProviderMetadataList', {
    example: {
      providers: [
        {
          provider: 'twilio',
          display_name: 'Twilio',
          docs_url: 'https://www.twilio.com/docs/voice/api/call-resource',
          connectivity: 'api',
          transfer_modes: ['blind', 'warm'],
          fields: [
            {
              name: 'account_sid',
              label: 'Account SID',
              type: 'password',
              description: 'Your Twilio Account SID (Console, Account Info).',
              placeholder: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
              required: true,
              sensitive: true,
            },
          ],
        },
      ],
    },
  });

export const TelephonyConfiguration = z
  .object({
    id: z.number().int(),
    name: z.string(),
    provider: z.string(),
    is_default_outbound: z.boolean(),
    calls_per_second: z.number().nullable().openapi({
      description: "The configured dial rate; null: the provider's default.",
      example: null,
    }),
    effective_calls_per_second: z.number().nullable().openapi({
      description:
        "Dials per second enforced across every campaign and call of this configuration: `calls_per_second`, else the provider's documented default; null: not paced.",
      example: 1,
    }),
    credentials: z.record(z.string(), z.unknown()).openapi({
      description: "The provider's fields; sensitive values masked (all but the last four characters are `*`).",
      example: { account_sid: '******************************1234', auth_token: '****************************abcd' },
    }),
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('TelephonyConfiguration', { example: EXAMPLE_CONFIGURATION });

export const TelephonyConfigurationList = z
  .object({ configurations: z.array(TelephonyConfiguration) })
  .openapi('TelephonyConfigurationList', { example: { configurations: [EXAMPLE_CONFIGURATION] } });

/** A provider's config schema with its `provider` discriminator; every provider's schema is an object. */
function providerConfigVariant(
  definition: ProviderDefinition,
): z.ZodObject<{ provider: z.ZodLiteral<string> }, z.core.$strip> {
  if (!(definition.configSchema instanceof z.ZodObject)) {
    throw new Error(`The ${definition.name} config schema must be a zod object`);
  }
  const name = `${definition.name.charAt(0).toUpperCase()}${definition.name.slice(1)}Config`;
  return definition.configSchema.extend({ provider: z.literal(definition.name) }).openapi(name);
}

/** Dials per second; the bounds keep the pacing interval between 1 ms and 100 s. */
export const CallsPerSecond = z.number().min(0.01).max(1000).openapi({
  description:
    "Dials per second across every campaign and call using this configuration (0.01 to 1000; null or absent: the provider's documented default, for example Twilio 1, Plivo 2, Vonage 3, Telnyx 30).",
  example: 2,
});

/** Request schemas that depend on the providers this deployment offers. */
export function telephonyConfigRequests(definitions: ProviderDefinition[]) {
  const [first, ...rest] = definitions.map(providerConfigVariant);
  if (!first) throw new Error('No telephony provider is available');
  const names = definitions.map((definition) => definition.name);
  return {
    CreateTelephonyConfigRequest: z
      .object({
        name: ConfigurationName,
        is_default_outbound: z.boolean().default(false),
        calls_per_second: CallsPerSecond.nullish(),
        config: z.discriminatedUnion('provider', [first, ...rest]),
      })
      .openapi('CreateTelephonyConfigRequest', {
        example: names.includes('twilio')
          ? {
              name: 'Twilio production',
              calls_per_second: 1,
              config: {
                provider: 'twilio',
                account_sid: 'AC0123456789abcdef0123456789abcd',
                auth_token: '0123456789abcdef0123456789abcdef',
              },
            }
          : { name: 'Simulator', config: { provider: 'simulator' } },
      }),
    UpdateTelephonyConfigRequest: z
      .object({
        name: ConfigurationName.optional(),
        calls_per_second: CallsPerSecond.nullish().openapi({ description: "null: back to the provider's default." }),
        config: z
          .looseObject({ provider: z.enum(names as [string, ...string[]]) })
          .superRefine(jsonBounds({ bytes: JSON_LIMITS.bytes }))
          .optional()
          .openapi({
            description:
              "`provider` (unchanged) and the fields that change; fields not sent keep their value. A masked value sent back unchanged keeps the stored secret. The result must satisfy the provider's config schema.",
          }),
      })
      .openapi('UpdateTelephonyConfigRequest', { example: { name: 'Twilio (main account)', calls_per_second: 5 } }),
  };
}

const CountryCode = z
  .string()
  .trim()
  .toUpperCase()
  .refine((code) => /^[A-Z]{2}$/.test(code) && isSupportedCountry(code), {
    error: 'must be an ISO 3166-1 alpha-2 country code',
  })
  .openapi({ example: 'US' });

const Label = text(64).trim();
const ExtraMetadata = z.record(z.string(), z.unknown());
/** What a client sends as `extra_metadata`: stored as is, so bounded. */
const ExtraMetadataInput = boundedJsonObject('Free metadata, stored as sent.');

const EXAMPLE_PHONE_NUMBER = {
  id: 5,
  telephony_configuration_id: 2,
  address: '+14155550123',
  address_normalized: '+14155550123',
  address_type: 'pstn',
  country_code: 'US',
  label: 'Support line',
  inbound_workflow_id: 12,
  inbound_workflow_name: 'Appointment reminder',
  is_active: true,
  is_default_caller_id: true,
  extra_metadata: {},
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const ProviderSync = z.object({ ok: z.boolean(), message: z.string() }).openapi('ProviderSync', {
  description:
    'The result of pushing an inbound change to the provider; `ok: false` is a warning: the write succeeded.',
});

export const PhoneNumber = z
  .object({
    id: z.number().int(),
    telephony_configuration_id: z.number().int(),
    address: z.string(),
    address_normalized: z.string().openapi({ description: 'E.164 for PSTN numbers.' }),
    address_type: z.enum(['pstn', 'sip_uri', 'sip_extension']),
    country_code: z.string().nullable(),
    label: z.string().nullable(),
    inbound_workflow_id: z.number().int().nullable(),
    inbound_workflow_name: z.string().nullable(),
    is_active: z.boolean(),
    is_default_caller_id: z.boolean(),
    extra_metadata: ExtraMetadata,
    created_at: DateTimeString,
    updated_at: DateTimeString,
    provider_sync: ProviderSync.optional(),
  })
  .openapi('PhoneNumber', { example: EXAMPLE_PHONE_NUMBER });

export const PhoneNumberList = z
  .object({ phone_numbers: z.array(PhoneNumber) })
  .openapi('PhoneNumberList', { example: { phone_numbers: [EXAMPLE_PHONE_NUMBER] } });

export const CreatePhoneNumberRequest = z
  .object({
    address: name(255).openapi({
      description: 'E.164 (`+14155550100`), a national number with `country_code`, a `sip:` URI or a SIP extension.',
    }),
    country_code: CountryCode.nullish(),
    label: Label.nullish(),
    inbound_workflow_id: BodyId.nullish(),
    is_active: z.boolean().default(true),
    is_default_caller_id: z.boolean().default(false),
    extra_metadata: ExtraMetadataInput.default({}),
  })
  .openapi('CreatePhoneNumberRequest', {
    example: { address: '+14155550123', label: 'Support line', inbound_workflow_id: 12, is_default_caller_id: true },
  });

export const UpdatePhoneNumberRequest = z
  .object({
    address: text(255).optional().openapi({ description: 'Immutable: only the current address is accepted.' }),
    label: Label.nullish(),
    inbound_workflow_id: BodyId.nullish().openapi({
      description: 'Binds inbound calls to this agent; `null` alone changes nothing.',
    }),
    clear_inbound_workflow: z.boolean().default(false).openapi({ description: '`true` removes the inbound binding.' }),
    is_active: z.boolean().optional(),
    country_code: CountryCode.nullish(),
    extra_metadata: ExtraMetadataInput.optional(),
  })
  .refine((body) => !(body.clear_inbound_workflow && body.inbound_workflow_id), {
    error: 'send either inbound_workflow_id or clear_inbound_workflow: true, not both',
    path: ['clear_inbound_workflow'],
  })
  .openapi('UpdatePhoneNumberRequest', { example: { label: 'Sales line', inbound_workflow_id: 12 } });

export const DeletedTelephonyConfiguration = z
  .object({ message: z.string() })
  .openapi('DeletedTelephonyConfiguration', { example: { message: 'Telephony configuration deleted' } });

export const DeletedPhoneNumber = z
  .object({ message: z.string(), provider_sync: ProviderSync })
  .openapi('DeletedPhoneNumber', {
    example: {
      message: 'Phone number deleted',
      provider_sync: { ok: true, message: 'No inbound binding: the provider was not contacted.' },
    },
  });

// The shape the domain answers (domain/telephony/types.ts), as documented here.
export type PhoneNumberDocumented = Documents<SameShape<z.output<typeof PhoneNumber>, PhoneNumberView>>;
