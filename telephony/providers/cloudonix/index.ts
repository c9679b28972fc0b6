import type { ProviderContext, ProviderDefinition, TelephonyProvider } from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { CloudonixClient } from './client';
import { cloudonixConfigSchema, cloudonixFields, type CloudonixConfig } from './config';
import { cloudonixAnswering, cloudonixInbound } from './inbound';
import { verifyCloudonixKey } from './signature';
import { parseCloudonixCdr } from './status';
import { cloudonixTransfer } from './transfer';

export type { CloudonixConfig } from './config';

export const cloudonixProvider: ProviderDefinition<CloudonixConfig> = {
  name: 'cloudonix',
  displayName: 'Cloudonix',
  docsUrl: 'https://developers.cloudonix.com/',
  connectivity: 'sip',
  configSchema: cloudonixConfigSchema,
  fields: cloudonixFields,
  // Cloudonix documents no default account rate: one call per second until configured.
  defaultCallsPerSecond: 1,
  transferModes: ['blind'],
  create: createCloudonixAdapter,
  inbound: cloudonixInbound,
};

function createCloudonixAdapter(config: CloudonixConfig, context: ProviderContext = {}): TelephonyProvider {
  const client = new CloudonixClient(config, context);
  return {
    originate: async (call) => ({ providerCallId: await client.dial(call) }),
    getCallStatus: (token) => client.sessionStatus(token),
    hangup: (token) => client.hangup(token),
    parseStatusWebhook: parseCloudonixCdr,
    verifyWebhook: (request) => verifyCloudonixKey(request, config.bearer_token),
    async configureInbound(_address, url) {
      // The Voice Application is the domain's default route, shared by all its numbers.
      if (url === null) return { ok: true, message: 'Nothing to detach: the domain Voice Application is shared' };
      try {
        await client.setApplicationUrl(url);
        return { ok: true, message: 'Cloudonix Voice Application points at Switchboard' };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },
    readiness: requireActiveNumber,
    transfer: cloudonixTransfer(client),
    ...cloudonixAnswering,
  };
}
