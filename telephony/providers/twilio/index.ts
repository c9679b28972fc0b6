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
  transferModes: ['blind', 'warm'],
  create: createTwilioProvider,
  inbound: twilioInbound,
};
