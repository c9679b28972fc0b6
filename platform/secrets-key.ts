/**
 * Decodes SECRETS_KEY: 32 bytes written as 64 hex digits or as base64 (standard or URL-safe).
 * Null when the value is neither, so config can reject it without echoing it.
 */
export function decodeSecretsKey(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}
