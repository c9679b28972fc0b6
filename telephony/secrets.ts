import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../platform/config';
import { readOrCreateSecretFile } from '../platform/data-dir-secret';
import { decodeSecretsKey } from '../platform/secrets-key';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts telephony secrets at rest with AES-256-GCM under SECRETS_KEY. A sealed value is
 * `v1.<base64url(iv | tag | ciphertext)>`; a wrong key or an altered value fails to open.
 */
export class Secrets {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The secrets key must be 32 bytes');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) throw new Error('Not a sealed secret');
    const bytes = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** A key for another purpose (e.g. signing the simulator's webhooks), independent of the encryption key. */
  deriveKey(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(`switchboard:${purpose}`).digest();
  }
}

/** Where the key comes from, as messages name it: SECRETS_KEY, or the file kept in DATA_DIR when it is unset. */
export function secretsKeySource(config: Pick<Config, 'SECRETS_KEY' | 'DATA_DIR'>): string {
  return config.SECRETS_KEY ? 'SECRETS_KEY' : join(config.DATA_DIR, 'secrets-key');
}

/**
 * SECRETS_KEY, or (outside production, where config requires it) a random key generated once and
 * kept in `${DATA_DIR}/secrets-key`, so credentials stay readable across restarts.
 */
export function loadSecrets(config: Pick<Config, 'SECRETS_KEY' | 'DATA_DIR'>): Secrets {
  const written =
    config.SECRETS_KEY ?? readOrCreateSecretFile(config.DATA_DIR, 'secrets-key', () => randomBytes(32).toString('hex'));
  const key = decodeSecretsKey(written);
  if (!key) {
    throw new Error(`${secretsKeySource(config)} does not hold 32 bytes written as hex or base64`);
  }
  return new Secrets(key);
}
