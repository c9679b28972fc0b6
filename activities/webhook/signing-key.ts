import type { Config } from '../../platform/config';
import type { Secrets } from '../../telephony/secrets';

/** The purpose string of the key derived from SECRETS_KEY (see `Secrets.deriveKey`). */
export const WEBHOOK_KEY_PURPOSE = 'webhook-signing';

/**
 * The key of the post-call webhook signatures: `WEBHOOK_SIGNING_SECRET` (its UTF-8 bytes) when set,
 * else HMAC-SHA256(SECRETS_KEY, "switchboard:webhook-signing"), stable as long as SECRETS_KEY is.
 */
export function webhookSigningKey(config: Pick<Config, 'WEBHOOK_SIGNING_SECRET'>, secrets: Secrets): Buffer {
  return config.WEBHOOK_SIGNING_SECRET
    ? Buffer.from(config.WEBHOOK_SIGNING_SECRET, 'utf8')
    : secrets.deriveKey(WEBHOOK_KEY_PURPOSE);
}
