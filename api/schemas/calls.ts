import { z } from '../zod';
import { boundedJsonObject } from './limits';
import { BodyId, IdParam, text } from './common';
import { PhoneNumberInput } from './phone-number';
import type { CallInitiated as DomainCallInitiated } from '../../domain/calls/types';
import type { Documents, SameShape } from './common';

export const TriggerPathParams = z.object({
  uuid: text(255).openapi({
    description: "The agent's API trigger path (a UUID).",
    example: '2d7c4e1a-9b3f-4f6e-8a21-5c0d9e7b3a14',
  }),
});

export const AgentUuidParams = z.object({
  workflow_uuid: text(255).openapi({
    description: 'The Agent UUID (`workflow_uuid`).',
    example: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  }),
});

export const CallRequest = z
  .object({
    phone_number: PhoneNumberInput.openapi({
      description:
        'The number to call, taken in its canonical E.164 form (libphonenumber, as for contact lists): the ' +
        "do-not-call list, the frequency caps and the run's `called_number` all see that form, so " +
        '`+4402079460958` is checked, dialed and answered as `+442079460958`.',
      example: '+14155550100',
    }),
    initial_context: boundedJsonObject('Variables for the prompts.').nullish(),
    telephony_configuration_id: BodyId.nullish().openapi({
      description: "The configuration to call through; default: the organization's default outbound one.",
    }),
    from_phone_number_id: BodyId.nullish().openapi({
      description: "The caller id; default: the configuration's default caller id, else an active number.",
    }),
  })
  .openapi('CallRequest', {
    example: { phone_number: '+14155550100', initial_context: { first_name: 'Ada', appointment_time: '10:30' } },
  });
export type CallRequest = z.output<typeof CallRequest>;

export const CallInitiated = z
  .object({
    status: z.literal('initiated'),
    workflow_run_id: z.number().int(),
    workflow_run_name: z.string(),
  })
  .openapi('CallInitiated', { example: { status: 'initiated', workflow_run_id: 501, workflow_run_name: 'call-501' } });
export type CallInitiated = z.output<typeof CallInitiated>;

export const StatusWebhookParams = z.object({
  provider: text(64).openapi({ example: 'twilio' }),
  run_id: IdParam.openapi({ example: 501 }),
});

export const WebhookReceived = z
  .object({ status: z.literal('received') })
  .openapi('WebhookReceived', { example: { status: 'received' } });

// The shape the domain answers (domain/calls/types.ts), as documented here.
export type CallInitiatedDocumented = Documents<SameShape<CallInitiated, DomainCallInitiated>>;
