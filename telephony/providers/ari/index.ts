import {
  ProviderError,
  type ProviderContext,
  type ProviderDefinition,
  type TelephonyProvider,
  type TelephonyTransfer,
} from '../../provider';
import { AriClient } from './client';
import { ariConfigSchema, ariFields, mintStasisAppName, type AriConfig } from './config';
import { ariAnswering, ariInbound } from './inbound';
import { AriCallTracker, parseAriEvent } from './status';
import { AriTransferBridge, runIdOfTransferChannel } from './transfer-bridge';

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
  // Warm would need the announcement as speech on Asterisk, which has no text-to-speech of its own.
  transferModes: ['blind'],
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
    transfer: ariTransfer(new AriTransferBridge(client, config)),
  };
}

/**
 * Transfers in the call's bridge (transfer-bridge.ts). The destination's events arrive over the
 * events WebSocket (the listener joins or restores the call and signals the workflow); `status`
 * and `cancel` take the same steps, so a call whose events nobody heard still settles.
 */
function ariTransfer(bridge: AriTransferBridge): TelephonyTransfer {
  const runOf = (channelId: string): number => {
    const runId = runIdOfTransferChannel(channelId);
    if (runId === undefined) throw new ProviderError(`ARI transfer id ${channelId} is not one of ours`);
    return runId;
  };
  return {
    start: async (request) => ({ transferId: await bridge.ring(request) }),
    cancel: (_callerChannelId, channelId) => bridge.restore(runOf(channelId), channelId),
    async status(_callerChannelId, channelId) {
      const status = await bridge.status(channelId);
      if (status === null) return null;
      if (status === 'answered') await bridge.join(runOf(channelId), channelId);
      return { status, transferId: channelId, providerCallId: channelId, raw: { channel: channelId } };
    },
    parseWebhook: () => {
      throw new ProviderError('Asterisk reports transfers over its events WebSocket, not a webhook');
    },
  };
}
