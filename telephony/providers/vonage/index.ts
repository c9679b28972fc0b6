import type { ProviderContext, ProviderDefinition, TelephonyProvider } from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { VonageClient } from './client';
import { vonageConfigSchema, vonageFields, type VonageConfig } from './config';
import { vonageAnswering, vonageInbound } from './inbound';
import { nonceStoreOf } from '../../nonce-store';
import { bindsAnswerToCall } from './answer-binding';
import { verifyVonageSignature } from './signature';
import { parseVonageStatusWebhook } from './status';
import { vonageTransfer } from './transfer';

export type { VonageConfig } from './config';

export const vonageProvider: ProviderDefinition<VonageConfig> = {
  name: 'vonage',
  displayName: 'Vonage',
  docsUrl: 'https://developer.vonage.com/en/voice/voice-api/overview',
  connectivity: 'api',
  configSchema: vonageConfigSchema,
  fields: vonageFields,
  // Vonage's default limit is 3 calls per second per account.
  defaultCallsPerSecond: 3,
  transferModes: ['blind', 'warm'],
  create: createVonageAdapter,
  inbound: vonageInbound,
};

function createVonageAdapter(config: VonageConfig, context: ProviderContext = {}): TelephonyProvider {
  const client = new VonageClient(config, context);
  const now = context.now ?? (() => new Date());
  const nonces = nonceStoreOf(context.dataSource);
  return {
    originate: async (call) => ({ providerCallId: await client.createCall(call) }),
    getCallStatus: (uuid) => client.callStatus(uuid),
    hangup: (uuid) => client.hangup(uuid),
    parseStatusWebhook: parseVonageStatusWebhook,
    verifyWebhook: (request) => verifyVonageSignature(request, config.signature_secret, now()),
    verifyAnswerWebhook: (request, providerCallId) =>
      bindsAnswerToCall(request, providerCallId, { signatureSecret: config.signature_secret, now: now(), nonces }),
    async configureInbound(_address, url) {
      // The answer URL belongs to the application that all the account's numbers share.
      if (url === null) return { ok: true, message: 'Nothing to detach: the application answer URL is shared' };
      if (!config.signature_secret) {
        return { ok: false, message: 'Vonage signature_secret is required to receive inbound calls' };
      }
      try {
        // Inbound calls carry no per-run event URL, so the application's events go to the sibling `events` route.
        await client.setInboundWebhooks(url, new URL('events', url).toString());
        return { ok: true, message: 'Vonage application answer URL points at Switchboard' };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },
    readiness: requireActiveNumber,
    ...vonageAnswering,
    transfer: vonageTransfer(client, now),
  };
}
