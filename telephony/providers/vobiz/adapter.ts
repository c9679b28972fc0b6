import { callProvider, syncFailure, unlessNotFound, type ProviderRequest } from '../../http';
import type { ProviderContext, ProviderSync, TelephonyProvider, WebhookRequest } from '../../provider';
import { nonceStoreOf } from '../../nonce-store';
import { requireActiveNumber } from '../../readiness';
import { plivoCompatibleCalls, withoutPlus, type PlivoDialect } from '../plivo-compatible/calls';
import type { PlivoCompatibleConfig } from '../plivo-compatible/config';
import { plivoCompatibleAnswering } from '../plivo-compatible/markup';
import { plivoCompatibleTransfer } from '../plivo-compatible/transfer';
import { vobizSignatureValid } from './signature';

/** Vobiz, Plivo-compatible: the same call fields under `/api/v1`, authenticated by X-Auth-ID/X-Auth-Token headers. */
export function createVobizProvider(config: PlivoCompatibleConfig, context: ProviderContext = {}): TelephonyProvider {
  const dialect: PlivoDialect = {
    label: 'Vobiz',
    origin: 'https://api.vobiz.ai',
    accountPath: `/api/v1/Account/${encodeURIComponent(config.auth_id)}`,
    authHeaders: { 'x-auth-id': config.auth_id, 'x-auth-token': config.auth_token },
  };
  const nonces = nonceStoreOf(context.dataSource);
  const call = (request: ProviderRequest) =>
    callProvider(dialect.label, dialect.origin, context, { ...request, headers: dialect.authHeaders });

  return {
    ...plivoCompatibleCalls(dialect, context),

    async verifyWebhook(request: WebhookRequest) {
      const nonce = request.headers['x-vobiz-signature-v3-nonce'] ?? '';
      return (
        vobizSignatureValid(config.auth_token, request) && (await nonces.claim(`vobiz:${config.auth_id}:${nonce}`))
      );
    },

    /**
     * Attaching binds the number to the configuration's Application, then points that Application's
     * answer URL at Switchboard; detaching removes the number's binding (already absent is fine).
     */
    async configureInbound(address: string, url: string | null): Promise<ProviderSync> {
      if (!address.startsWith('+')) return { ok: true, message: 'Not a PSTN number: nothing to configure at Vobiz.' };
      // The number in the path without `+`, as Vobiz takes numbers elsewhere (unconfirmed for this resource).
      const binding = `${dialect.accountPath}/numbers/${encodeURIComponent(withoutPlus(address))}/application`;
      try {
        if (!url) {
          const detached = await unlessNotFound(call({ method: 'DELETE', path: binding }));
          return {
            ok: true,
            message: detached
              ? `Vobiz no longer sends inbound calls to ${address} to Switchboard.`
              : `${address} had no Vobiz application binding: nothing to detach.`,
          };
        }
        if (!config.application_id) {
          return { ok: false, message: 'Set application_id on this Vobiz configuration to receive inbound calls.' };
        }
        await call({ method: 'POST', path: binding, json: { application_id: config.application_id } });
        await call({
          method: 'POST',
          path: `${dialect.accountPath}/Application/${encodeURIComponent(config.application_id)}/`,
          json: { answer_url: url, answer_method: 'POST' },
        });
        return { ok: true, message: `Vobiz sends inbound calls to ${address} to Switchboard.` };
      } catch (error) {
        return syncFailure(error);
      }
    },

    readiness: requireActiveNumber,
    ...plivoCompatibleAnswering,
    transfer: plivoCompatibleTransfer(dialect, context),
  };
}
