import { z } from '../zod';

/**
 * What a provider posts to a webhook, read by the provider's adapter (its signature covers the raw
 * bytes): form fields (Twilio, Plivo, Vobiz, the simulator) or JSON (Telnyx, Vonage, Cloudonix).
 * Any body is taken, even none: the adapter decides, after the signature, what is missing (400).
 */
export const providerWebhookBody = {
  description: "The provider's event, as the provider sends it; the provider's signature headers authenticate it.",
  required: false,
  content: {
    'application/x-www-form-urlencoded': z
      .record(z.string(), z.string())
      .openapi('ProviderFormEvent', { example: { CallSid: 'CA0123', CallStatus: 'completed' } }),
    'application/json': z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .openapi('ProviderJsonEvent', {
        description: 'An object (or an array, which no adapter takes); the adapter refuses what is not its event.',
        example: { uuid: '63f61863-4a51-4f6b-86e1-46edebcf9356', status: 'answered' },
      }),
  },
};

/** Vonage posts JSON only. */
export const vonageWebhookBody = {
  ...providerWebhookBody,
  content: { 'application/json': providerWebhookBody.content['application/json'] },
};

/** A JSON answer to a provider: a Vonage NCCO (an array), the simulator's instructions or `{status}`. */
export const ProviderJsonReply = z
  .union([z.array(z.record(z.string(), z.unknown())), z.record(z.string(), z.unknown())])
  .openapi('ProviderJsonReply', {
    example: [
      {
        action: 'connect',
        endpoint: [
          {
            type: 'websocket',
            uri: 'wss://switchboard.example.com/api/v1/telephony/vonage/media/501?token=eyJydW4iOjUwMX0.c2lnbmF0dXJl',
            'content-type': 'audio/l16;rate=16000',
            headers: { run_id: '501' },
          },
        ],
      },
    ],
  });
