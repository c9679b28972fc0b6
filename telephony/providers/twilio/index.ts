import type { ProviderDefinition } from '../../provider';
import { createTwilioProvider } from './adapter';
import { twilioConfigSchema, twilioFields, type TwilioConfig } from './config';
import { twilioInbound } from './inbound';

export const twilioProvider: ProviderDefinition<TwilioConfig> = {
  name: 'twilio',
  displayName: 'Twilio',
  docsUrl: 'https://www.twilio.com/docs/voice/api/call-resource',
  connectivity: 'api',
  configSchema: twilioConfigSchema,
  fields: twilioFields,
  // Twilio's default is 1 call per second per account (Programmable Voice) unless raised.
  defaultCallsPerSecond: 1,
  // Blind only: a warm transfer holds the caller in a conference, which TwiML cannot leave when the
  // destination does not answer, so the caller could not be handed back to the agent.
  transferModes: ['blind'],
  create: createTwilioProvider,
  inbound: twilioInbound,
};
