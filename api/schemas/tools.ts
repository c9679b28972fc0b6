import type { ToolView } from '../../domain/tools/types';
import {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TRANSFER_RING_SECONDS,
  DESTINATION_SOURCES,
  HTTP_METHODS,
  MAX_TRANSFER_RING_SECONDS,
  MIN_TRANSFER_RING_SECONDS,
  TRANSFER_MODES,
  MAX_TIMEOUT_MS,
  PARAMETER_TYPES,
  TOOL_STATUSES,
  TOOL_TYPES,
} from '../../domain/tools/types';
import { TEXT_LIMITS } from '../../domain/limits';
import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME, name, text, type Documents, type SameShape } from './common';
import { boundedJsonObject } from './limits';
import { isContextPath, isTransferDestination, normalizedDestination } from '../../domain/tools/transfer-destination';

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const parameterName = z
  .string()
  .regex(PARAMETER_NAME, 'a letter or `_`, then letters, digits or `_` (at most 64)')
  .openapi({ example: 'order_id' });

const ToolParameter = z
  .object({
    name: parameterName,
    type: z.enum(PARAMETER_TYPES),
    description: text(TEXT_LIMITS.text).default(''),
    required: z.boolean().default(true),
  })
  .openapi('ToolParameter', { description: 'A value the model fills when it calls the tool.' });

const PresetParameter = z
  .object({
    name: parameterName,
    type: z.enum(PARAMETER_TYPES),
    value_template: z.string().max(TEXT_LIMITS.text).openapi({ example: '{{initial_context.phone_number}}' }),
    required: z.boolean().default(true),
  })
  .openapi('PresetToolParameter', {
    description:
      'A value Switchboard fills from the call: a fixed text or a template over `{{initial_context.*}}` and ' +
      '`{{gathered_context.*}}`. A required one that renders empty fails the call of the tool (the model is told).',
  });

const unique = (items: { name: string }[]) => new Set(items.map((item) => item.name)).size === items.length;

const HttpApiConfig = z
  .object({
    method: z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(HTTP_METHODS)),
    url: z
      .string()
      .max(TEXT_LIMITS.url)
      .openapi({
        description:
          'http or https. Placeholders (`{{order_id}}`, `{{initial_context.x}}`) may stand in the path and query, ' +
          'percent-encoded when filled; the scheme and host are fixed. A host that is a private, loopback or ' +
          'metadata address is refused here and at every call.',
        example: 'https://shop.example.com/orders/{{order_id}}',
      }),
    headers: z
      .record(z.string().max(TEXT_LIMITS.name), z.string().max(TEXT_LIMITS.text))
      .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 headers')
      .default({})
      .openapi({ description: 'Sent with every request (templated). Put secrets in a credential, not here.' }),
    credential_uuid: z.string().max(TEXT_LIMITS.name).optional().openapi({
      description: 'A credential of the organization whose headers authenticate the request; its value is never shown.',
    }),
    parameters: z.array(ToolParameter).max(50).default([]),
    preset_parameters: z.array(PresetParameter).max(50).default([]),
    body_template: boundedJsonObject(
      'JSON sent as the body of POST, PUT and PATCH requests, with `{{name}}` placeholders; a string that is ' +
        "exactly one placeholder keeps the value's JSON type. Absent: the parameters and presets as one flat object.",
    ).optional(),
    timeout_ms: z.number().int().min(100).max(MAX_TIMEOUT_MS).default(DEFAULT_TIMEOUT_MS),
    customMessage: text(TEXT_LIMITS.text).optional().openapi({
      description: 'Said to the caller before the request is sent ("Let me look that up.").',
    }),
  })
  .refine((config) => unique([...config.parameters, ...config.preset_parameters]), {
    message: 'parameter and preset parameter names must be unique',
    path: ['parameters'],
  });

const EndCallConfig = z.object({
  messageType: z.enum(['none', 'custom']).default('none'),
  customMessage: text(TEXT_LIMITS.text).optional().openapi({ description: 'Said before the call ends.' }),
  endCallReason: z.boolean().default(false).openapi({
    description: 'The model must give a `reason`, which becomes the call disposition.',
  }),
  endCallReasonDescription: text(TEXT_LIMITS.text).optional(),
});

const DESTINATION_FORMAT = 'an E.164 number (+14155550123) or a SIP URI (sip:desk@pbx.example.com)';
const destination = z
  .string()
  .max(TEXT_LIMITS.name)
  .transform(normalizedDestination)
  .refine(isTransferDestination, `must be ${DESTINATION_FORMAT}`)
  .openapi({ example: '+14155550123' });

const TransferRule = z
  .object({
    context_path: z
      .string()
      .max(TEXT_LIMITS.name)
      .refine(isContextPath, 'must be `initial_context.<key>` or `gathered_context.<key>`')
      .openapi({ example: 'gathered_context.department' }),
    equals: z.string().max(TEXT_LIMITS.name).openapi({ example: 'sales' }),
    destination,
  })
  .openapi('TransferRule', {
    description: 'Matches when the context value, as text, equals `equals` (ignoring case and surrounding spaces).',
  });

const TransferCallConfig = z
  .object({
    destination_source: z
      .enum(DESTINATION_SOURCES)
      .default('static')
      .openapi({
        description:
          '`static`: `destination`; `dynamic`: the model passes a `destination`, which must be one of ' +
          "`allowed_destinations`; `context_mapping`: the first of `rules` that matches the call's context, else " +
          '`fallback_destination`.',
      }),
    destination: z
      .string()
      .max(TEXT_LIMITS.text)
      .optional()
      .openapi({
        description: `For \`static\`: ${DESTINATION_FORMAT}, or a template over the call's context that renders one.`,
        example: '+14155550123',
      }),
    allowed_destinations: z.array(destination).min(1).max(50).optional(),
    rules: z.array(TransferRule).max(50).optional(),
    fallback_destination: destination.optional(),
    ring_timeout_seconds: z
      .number()
      .int()
      .min(MIN_TRANSFER_RING_SECONDS)
      .max(MAX_TRANSFER_RING_SECONDS)
      .default(DEFAULT_TRANSFER_RING_SECONDS)
      .openapi({ description: 'How long the destination may ring before the agent comes back to the caller.' }),
    message: text(TEXT_LIMITS.text).optional().openapi({
      description: 'Said to the caller before the transfer starts ("Let me put you through to a colleague.").',
    }),
    mode: z
      .enum(TRANSFER_MODES)
      .default('blind')
      .openapi({
        description:
          '`blind`: the caller is connected as soon as the destination answers. `warm`: the person who answers ' +
          'first hears `warm_message` (or, without one, a short summary of the call written from its transcript), ' +
          "then the caller is joined; refused unless every telephony provider of the organization's " +
          "configurations supports it (see the providers' metadata).",
      }),
    warm_message: text(TEXT_LIMITS.text)
      .optional()
      .openapi({
        description:
          'For `warm`: what the person hears when they answer, before the caller is joined; a template over ' +
          "the call's context (`{{initial_context.name}}`, `{{gathered_context.reason}}`). Absent: a short " +
          'summary of the call, written from the transcript by the language model the agent talks with when one is ' +
          'configured, else (or when the model fails) made from what the caller said and the context gathered so far.',
        example: 'A caller about order {{initial_context.order_id}}: {{gathered_context.reason}}.',
      }),
  })
  .superRefine((config, ctx) => {
    const missing = (field: string, why: string) =>
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required ${why}` });
    if (config.destination_source === 'static') {
      const given = config.destination?.trim() ?? '';
      if (!given) missing('destination', 'with destination_source static');
      else if (!given.includes('{{') && !isTransferDestination(normalizedDestination(given))) {
        ctx.addIssue({ code: 'custom', path: ['destination'], message: `must be ${DESTINATION_FORMAT} or a template` });
      }
    }
    if (config.destination_source === 'dynamic' && !config.allowed_destinations) {
      missing('allowed_destinations', 'with destination_source dynamic');
    }
    if (config.destination_source === 'context_mapping' && !config.fallback_destination) {
      missing('fallback_destination', 'with destination_source context_mapping');
    }
  });

export const ToolDefinition = z
  .discriminatedUnion('type', [
    z.object({ schema_version: z.literal(1).default(1), type: z.literal('http_api'), config: HttpApiConfig }),
    z.object({
      schema_version: z.literal(1).default(1),
      type: z.literal('end_call'),
      config: EndCallConfig.prefault({}),
    }),
    z.object({
      schema_version: z.literal(1).default(1),
      type: z.literal('calculator'),
      config: z.strictObject({}).prefault({}),
    }),
    z.object({ schema_version: z.literal(1).default(1), type: z.literal('transfer_call'), config: TransferCallConfig }),
  ])
  .openapi('ToolDefinition', {
    description:
      '`http_api`: an HTTP request the model fills in; `end_call`: ends the call, optionally with a spoken ' +
      'message and a reason that becomes the disposition; `calculator`: arithmetic (`+ - * / % ^`, ' +
      'parentheses) on an `expression` argument, evaluated safely; `transfer_call`: hands the caller to a ' +
      'person at a number or SIP address, and tells the model why when nobody takes the call.',
  });

const EXAMPLE_DEFINITION = {
  schema_version: 1,
  type: 'http_api',
  config: {
    method: 'GET',
    url: 'https://shop.example.com/orders/{{order_id}}',
    headers: {},
    credential_uuid: '5c0c5c3e-1e9b-4a55-9a0e-2f3d8f1a7c11',
    parameters: [
      { name: 'order_id', type: 'string', description: 'The order number the caller gives', required: true },
    ],
    preset_parameters: [
      { name: 'customer_phone', type: 'string', value_template: '{{initial_context.phone_number}}', required: false },
    ],
    timeout_ms: 5000,
    customMessage: 'Let me look that up.',
  },
};

export const ToolRequest = z
  .object({
    name: name().openapi({
      description:
        'The function name the model sees is this name lower-cased, with anything but `a-z`, `0-9` and `_` as `_`.',
      example: 'Order status',
    }),
    description: text(TEXT_LIMITS.text).default('').openapi({
      description: 'Tells the model when to use the tool.',
      example: 'Looks up the status of an order by its number.',
    }),
    definition: ToolDefinition,
  })
  .openapi('ToolRequest', {
    example: {
      name: 'Order status',
      description: 'Looks up the status of an order by its number.',
      definition: EXAMPLE_DEFINITION,
    },
  });

const EXAMPLE_TOOL = {
  tool_uuid: '0f8e6a52-3c1d-4d2b-8d53-8a1f4c2e9b10',
  name: 'Order status',
  description: 'Looks up the status of an order by its number.',
  category: 'http_api',
  status: 'active',
  definition: EXAMPLE_DEFINITION,
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const ToolResponse = z
  .object({
    tool_uuid: z.uuid(),
    name: z.string(),
    description: z.string(),
    category: z.enum(TOOL_TYPES),
    status: z.enum(TOOL_STATUSES),
    definition: ToolDefinition,
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('Tool', { example: EXAMPLE_TOOL });

export const ToolList = z.object({ tools: z.array(ToolResponse) }).openapi('ToolList', {
  description: 'Newest first.',
  example: { tools: [EXAMPLE_TOOL] },
});

export const ToolParams = z.object({
  tool_uuid: z.uuid().openapi({ example: '0f8e6a52-3c1d-4d2b-8d53-8a1f4c2e9b10' }),
});

export const ToolListQuery = z.object({
  status: z.enum(TOOL_STATUSES).optional(),
  category: z.enum(TOOL_TYPES).optional(),
});

export const ToolTestRequest = z
  .object({
    arguments: boundedJsonObject('What the model would pass.').default({}),
    initial_context: boundedJsonObject("Stands in for the call's initial context (presets, templates).").default({}),
    gathered_context: boundedJsonObject('Stands in for the values gathered during the call.').default({}),
  })
  .openapi('ToolTestRequest', { example: { arguments: { order_id: 'A-1042' }, initial_context: {} } });

const ToolResult = z
  .object({
    ok: z.boolean(),
    status_code: z.number().int().optional(),
    data: z.unknown().optional(),
    error: z.string().optional(),
    truncated: z.literal(true).optional(),
  })
  .openapi('ToolResult', {
    description:
      'What the model is told: `ok` is true only for a 2xx answer; JSON answers parsed, others as text, cut ' +
      'past 8,000 characters with a note; timeouts, refused addresses and network errors as `{ok: false, error}`.',
  });

export const ToolTestResponse = z
  .object({
    request: z.object({
      method: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()).openapi({ description: "The credential's values masked." }),
      body: z.string().optional(),
    }),
    answer: z
      .object({
        status: z.number().int(),
        content_type: z.string().optional(),
        body_excerpt: z.string(),
        truncated: z.boolean(),
      })
      .optional(),
    result: ToolResult,
    duration_ms: z.number().int(),
  })
  .openapi('ToolTestResponse', {
    example: {
      request: {
        method: 'GET',
        url: 'https://shop.example.com/orders/A-1042',
        headers: { Authorization: '**************************ab12', 'Idempotency-Key': 'test-0f8e6a52-1' },
      },
      answer: { status: 200, content_type: 'application/json', body_excerpt: '{"status":"shipped"}', truncated: false },
      result: { ok: true, status_code: 200, data: { status: 'shipped' } },
      duration_ms: 84,
    },
  });

export type ToolDocumented = Documents<SameShape<z.output<typeof ToolResponse>, ToolView>>;
