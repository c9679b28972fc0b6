import { createHash } from 'node:crypto';
import { decodeSecretsKey } from './secrets-key';

/** One key of the payload codec: its id travels in each payload's metadata. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Reads PAYLOAD_ENCRYPTION_KEYS: `id:key` entries separated by commas, each key 32 bytes written as
 * hex or base64; the first encrypts, all decrypt. Null when malformed (ids repeated, a bad id or
 * key), so config can refuse it without echoing it.
 */
export function parsePayloadKeys(value: string): PayloadKey[] | null {
  const keys: PayloadKey[] = [];
  for (const entry of value.split(',')) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator).trim();
    const key = separator > 0 ? decodeSecretsKey(entry.slice(separator + 1)) : null;
    if (!KEY_ID.test(id) || !key || keys.some((known) => known.id === id)) return null;
    keys.push({ id, key });
  }
  return keys;
}

/**
 * The key outside production when PAYLOAD_ENCRYPTION_KEYS is unset: derived from a public phrase,
 * so every local process, test and script agrees on it without setup. It keeps the encrypted path
 * exercised everywhere but protects nothing; production refuses to start without real keys.
 */
export const DEVELOPMENT_PAYLOAD_KEY: PayloadKey = {
  id: 'development',
  key: createHash('sha256').update('switchboard development payload key (public, not a secret)').digest(),
};

/**
 * The codec's keys from the configuration (validated by config), or the development key outside
 * production.
 */
export function payloadKeys(config: { NODE_ENV: string; PAYLOAD_ENCRYPTION_KEYS?: string | undefined }): PayloadKey[] {
  if (config.PAYLOAD_ENCRYPTION_KEYS) {
    const keys = parsePayloadKeys(config.PAYLOAD_ENCRYPTION_KEYS);
    if (!keys) throw new Error('PAYLOAD_ENCRYPTION_KEYS: must be id:key entries separated by commas');
    return keys;
  }
  if (config.NODE_ENV === 'production') throw new Error('PAYLOAD_ENCRYPTION_KEYS: required in production');
  return [DEVELOPMENT_PAYLOAD_KEY];
}
