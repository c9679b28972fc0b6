import { basicAuth, callProvider, syncFailure } from '../../http';
import type { ProviderContext, ProviderSync, TelephonyProvider, WebhookRequest } from '../../provider';
import { nonceStoreOf } from '../../nonce-store';
import { requireActiveNumber } from '../../readiness';
import { formParams } from '../../webhook-signatures';
import { plivoCompatibleCalls, type PlivoDialect } from '../plivo-compatible/calls';
import type { PlivoCompatibleConfig } from '../plivo-compatible/config';
import { plivoCompatibleAnswering } from '../plivo-compatible/markup';
import { plivoCompatibleTransfer } from '../plivo-compatible/transfer';
import { anySignatureMatches, plivoV3Signature } from '../plivo-compatible/signature-v3';

/** Plivo Voice API v1, HTTP Basic with the auth id and auth token. */
export function createPlivoProvider(config: PlivoCompatibleConfig, context: ProviderContext = {}): TelephonyProvider {
  const dialect: PlivoDialect = {
    label: 'Plivo',
    origin: 'https://api.plivo.com',
    accountPath: `/v1/Account/${encodeURIComponent(config.auth_id)}`,
    authHeaders: { authorization: basicAuth(config.auth_id, config.auth_token) },
  };

  const nonces = nonceStoreOf(context.dataSource);

  return {
    ...plivoCompatibleCalls(dialect, context),

    /** V3 signature with a nonce; a nonce seen before within the window is a replay. */
    async verifyWebhook(request: WebhookRequest) {
      const signature = request.headers['x-plivo-signature-v3'];
      const nonce = request.headers['x-plivo-signature-v3-nonce'];
      if (!signature || !nonce) return false;
      const params = request.method.toUpperCase() === 'GET' ? [] : formParams(request.rawBody);
      const expected = plivoV3Signature(config.auth_token, request.method, request.url, params, nonce);
      return anySignatureMatches(signature, expected) && (await nonces.claim(`plivo:${config.auth_id}:${nonce}`));
    },

    /**
     * Plivo routes inbound calls through the account's Application: attaching points its answer URL
     * at Switchboard (linking numbers to that Application is done in the Plivo console). The URL is
     * shared by all numbers, so detaching one number changes nothing at Plivo.
     */
    async configureInbound(address: string, url: string | null): Promise<ProviderSync> {
      if (!url) return { ok: true, message: 'Plivo needs no change: the Application answer URL is shared.' };
      if (!config.application_id) {
        return { ok: false, message: 'Set application_id on this Plivo configuration to receive inbound calls.' };
      }
      try {
        await callProvider(dialect.label, dialect.origin, context, {
          method: 'POST',
          path: `${dialect.accountPath}/Application/${encodeURIComponent(config.application_id)}/`,
          headers: dialect.authHeaders,
          json: { answer_url: url, answer_method: 'POST' },
        });
        return {
          ok: true,
          message: `Plivo Application ${config.application_id} answers inbound calls with Switchboard.`,
        };
      } catch (error) {
        return syncFailure(error);
      }
    },

    readiness: requireActiveNumber,
    ...plivoCompatibleAnswering,
    transfer: plivoCompatibleTransfer(dialect, context),
  };
}
