import { z } from '../zod';
import { boundedJsonObject } from './limits';
import { BodyId, IdParam, text } from './common';

const E164 = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, { error: 'phone_number must be in E.164 format, for example +14155550100' })
  .openapi({ example: '+14155550100' });

export const TriggerPathParams = z.object({
  uuid: text(255).openapi({ description: "The agent's API trigger path (a UUID)." }),
});

export const AgentUuidParams = z.object({
  workflow_uuid: text(255).openapi({ description: 'The Agent UUID (`workflow_uuid`).' }),
});

export const CallRequest = z
  .object({
    phone_number: E164,
    initial_context: boundedJsonObject('Variables for the prompts.').nullish(),
    telephony_configuration_id: BodyId.nullish().openapi({
      description: "The configuration to call through; default: the organization's default outbound one.",
    }),
    from_phone_number_id: BodyId.nullish().openapi({
      description: "The caller id; default: the configuration's default caller id, else an active number.",
    }),
  })
  .openapi('CallRequest');
export type CallRequest = z.output<typeof CallRequest>;

export const CallInitiated = z
  .object({
    status: z.literal('initiated'),
    workflow_run_id: z.number().int(),
    workflow_run_name: z.string(),
  })
  .openapi('CallInitiated');
export type CallInitiated = z.output<typeof CallInitiated>;

export const StatusWebhookParams = z.object({ provider: text(64), run_id: IdParam });

export const WebhookReceived = z.object({ status: z.literal('received') }).openapi('WebhookReceived');
