import type { ProviderContext, ProviderDefinition, TelephonyProvider } from '../../provider';
import { AriClient } from './client';
import { ariConfigSchema, ariFields, mintStasisAppName, type AriConfig } from './config';
import { ariAnswering, ariInbound } from './inbound';
import { AriCallTracker, parseAriEvent } from './status';

export type { AriConfig } from './config';
export { mintStasisAppName } from './config';
export { openAriEventStream, type AriEventHandlers, type AriEventStream } from './events';

export const ariProvider: ProviderDefinition<AriConfig> = {
  name: 'ari',
  displayName: 'Asterisk ARI',
  docsUrl: 'https://docs.asterisk.org/Configuration/Interfaces/Asterisk-REST-Interface-ARI/',
  connectivity: 'sip',
  configSchema: ariConfigSchema,
  fields: ariFields,
  // Your own Asterisk: the trunk behind it sets the limit, so calls are paced only when configured.
  defaultCallsPerSecond: null,
  transferModes: [],
  create: createAriAdapter,
  inbound: ariInbound,
  // Minted once on create and carried through updates: Asterisk's dialplan names this app.
  addressFields: ['ari_endpoint'],
  serverManaged: (stored) => ({
    stasis_app_name: typeof stored?.stasis_app_name === 'string' ? stored.stasis_app_name : mintStasisAppName(),
  }),
};

function createAriAdapter(config: AriConfig, context: ProviderContext = {}): TelephonyProvider {
  const client = new AriClient(config, context);
  const tracker = new AriCallTracker();
  return {
    originate: async (call) => ({ providerCallId: await client.originate(call) }),
    getCallStatus: (channelId) => client.channelStatus(channelId),
    hangup: (channelId) => client.hangup(channelId),
    /** Takes an ARI event as JSON text (see openAriEventStream); `ChannelDestroyed` needs the channel's earlier events. */
    parseStatusWebhook: (request) => {
      const { event, raw } = parseAriEvent(request.rawBody);
      return tracker.toStatusEvent(event, raw);
    },
    // Asterisk sends no HTTP webhooks: its events arrive over the WebSocket we open with Basic auth.
    verifyWebhook: () => false,
    // The dialplan routes inbound calls into the Stasis app; there is nothing to change on Asterisk.
    configureInbound: (_address, url) =>
      Promise.resolve({
        ok: true,
        message: url === null ? 'Nothing to detach on Asterisk' : 'Asterisk routes inbound calls through its dialplan',
      }),
    // Asterisk needs no caller id (a call without one uses the endpoint's default), only its Stasis app.
    readiness: () =>
      config.stasis_app_name ? { ready: true } : { ready: false, reason: 'ARI stasis_app_name is not set' },
    ...ariAnswering(config, context),
  };
}
