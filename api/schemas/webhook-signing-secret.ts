import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME } from './common';

const fields = {
  created_at: DateTimeString.openapi({ description: 'When the current secret was created (rotated).' }),
  previous_secret_expires_at: DateTimeString.nullable().openapi({
    description:
      'Until then deliveries are also signed with the secret this one replaced (a second `v1=` entry); null when no previous secret signs any more.',
  }),
};

export const WebhookSigningSecret = z
  .object({
    secret: z.string().openapi({
      description: 'Masked: `whsec_` and the last four characters. The full secret is shown only by a rotation.',
      example: 'whsec_****************************************abcd',
    }),
    ...fields,
  })
  .openapi('WebhookSigningSecret', {
    example: {
      secret: 'whsec_****************************************abcd',
      created_at: EXAMPLE_TIME,
      previous_secret_expires_at: null,
    },
  });

export const RotatedWebhookSigningSecret = z
  .object({
    secret: z.string().openapi({
      description:
        'The new secret in full: returned only here, never retrievable again. Receivers use its UTF-8 bytes as the HMAC key.',
      example: 'whsec_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    }),
    ...fields,
  })
  .openapi('RotatedWebhookSigningSecret', {
    example: {
      secret: 'whsec_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      created_at: EXAMPLE_TIME,
      previous_secret_expires_at: '2026-03-03T15:04:05.000Z',
    },
  });
