import type {
  NumberForReadiness,
  ProviderContext,
  ProviderDefinition,
  Readiness,
  TelephonyProvider,
} from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { TelnyxClient } from './client';
import { telnyxConfigSchema, telnyxFields, type TelnyxConfig } from './config';
import { telnyxAnswering, telnyxInbound } from './inbound';
import { telnyxConnectionId, telnyxPublicKey, verifyTelnyxSignature } from './signature';
import { parseTelnyxStatusWebhook } from './status';
import { telnyxTransfer } from './transfer';

export type { TelnyxConfig } from './config';

export const telnyxProvider: ProviderDefinition<TelnyxConfig> = {
  name: 'telnyx',
  displayName: 'Telnyx',
  docsUrl: 'https://developers.telnyx.com/docs/voice/programmable-voice/get-started',
  connectivity: 'api',
  configSchema: telnyxConfigSchema,
  fields: telnyxFields,
  // Telnyx's default dial limit is 30 dials per second per account.
  defaultCallsPerSecond: 30,
  transferModes: ['blind', 'warm'],
  create: createTelnyxAdapter,
  inbound: telnyxInbound,
};

function createTelnyxAdapter(config: TelnyxConfig, context: ProviderContext = {}): TelephonyProvider {
  const client = new TelnyxClient(config, context);
  const publicKey = config.webhook_public_key ? telnyxPublicKey(config.webhook_public_key) : null;
  const now = context.now ?? (() => new Date());
  return {
    originate: async (call) => ({ providerCallId: await client.dial(call) }),
    getCallStatus: (callControlId) => client.callStatus(callControlId),
    hangup: (callControlId) => client.hangup(callControlId),
    parseStatusWebhook: parseTelnyxStatusWebhook,
    accountId: config.connection_id,
    // A configuration with a connection id takes only its connection's webhooks.
    verifyWebhook: (request) =>
      verifyTelnyxSignature(request, publicKey, now()) &&
      (!config.connection_id || [undefined, config.connection_id].includes(telnyxConnectionId(request.rawBody))),
    async configureInbound(_address, url) {
      // The webhook URL belongs to the Call Control App that all the account's numbers share.
      if (url === null) return { ok: true, message: 'Nothing to detach: the Call Control App webhook is shared' };
      try {
        await client.setApplicationWebhook(url);
        return { ok: true, message: 'Call Control App webhook points at Switchboard' };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },
    readiness: (numbers) => telnyxReadiness(config, numbers),
    ...telnyxAnswering(config, context),
    transfer: telnyxTransfer(config, context),
  };
}

function telnyxReadiness(config: TelnyxConfig, numbers: NumberForReadiness[]): Readiness {
  if (!config.connection_id) return { ready: false, reason: 'Telnyx connection_id (Call Control App) is not set' };
  return requireActiveNumber(numbers);
}
