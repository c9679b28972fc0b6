import { createHash, randomBytes } from 'node:crypto';

const API_KEY_MARKER = 'sbk_';
/** `sbk_` plus 32 random bytes in base64url (43 characters). */
const API_KEY_PATTERN = /^sbk_[A-Za-z0-9_-]{43}$/;
const KEY_PREFIX_LENGTH = 8;

export interface NewApiKey {
  /** The full key: shown to its creator once, never stored. */
  key: string;
  /** The first 8 characters, stored and listed so a key can be recognised. */
  prefix: string;
  /** SHA-256 hex of the full key: the only form that is stored. */
  hash: string;
}

/** SHA-256 hex: keys carry 256 random bits, so a fast unsalted hash is enough to store them safely. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_MARKER}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, KEY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** Cheap shape check, so a malformed key is refused without a database lookup. */
export const isWellFormedApiKey = (value: string): boolean => API_KEY_PATTERN.test(value);
