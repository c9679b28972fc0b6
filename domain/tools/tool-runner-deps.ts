import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Resolver } from '../../platform/address-guard';
import type { Secrets } from '../../telephony/secrets';
import { credentialHeaders } from '../credentials/credential-types';
import { openCredential } from '../credentials/credentials';
import { signedUrl, v2Headers } from '../webhooks/signature-v2';
import { WebhookSigningSecrets } from '../webhooks/signing-secrets';
import type { ToolRunnerDeps } from './tool-runner';

/** A credential an HTTP tool names that no longer exists: the call of the tool fails with this. */
export class ToolCredentialMissingError extends Error {}

/**
 * What a tool runner needs, from the service's own parts: credentials opened for the one request
 * that sends them, and the `v2` webhook signature (method, URL, `webhook-id` = the idempotency key,
 * time, body) under the organization's signing secret, so receivers verify tools as they verify
 * post-call webhooks.
 */
export function createToolRunnerDeps({
  dataSource,
  secrets,
  config,
  resolve,
}: {
  dataSource: DataSource;
  secrets: Secrets;
  config: Pick<Config, 'ALLOW_PRIVATE_WEBHOOKS'>;
  resolve?: Resolver;
}): ToolRunnerDeps {
  const signingSecrets = new WebhookSigningSecrets(dataSource, secrets);
  return {
    policy: { allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS, allowSetting: 'ALLOW_PRIVATE_WEBHOOKS', resolve },
    async credentialHeaders(organizationId, credentialUuid) {
      const credential = await openCredential(dataSource, secrets, organizationId, credentialUuid);
      if (!credential) throw new ToolCredentialMissingError(`the credential ${credentialUuid} no longer exists`);
      return credentialHeaders(credential);
    },
    async signatureHeaders(organizationId, { method, url, id, body }) {
      return v2Headers(await signingSecrets.signingKeys(organizationId), {
        method,
        url: signedUrl(url),
        id,
        timestamp: Math.floor(Date.now() / 1000),
        body,
      });
    },
  };
}
