import type { ProviderField } from './provider';
import type { Secrets } from './secrets';

/**
 * How a configuration's fields are stored in `telephony_configurations.credentials`: plain values
 * as they are, each sensitive string as `{"enc": "<sealed>"}` (AES-256-GCM under SECRETS_KEY).
 */
export type StoredCredentials = Record<string, unknown>;

/** What the credential helpers read of a definition (a provider's, a credential type's): which fields are sensitive. */
export type WithFields = { fields: Pick<ProviderField, 'name' | 'sensitive'>[] };

interface Sealed {
  enc: string;
}

const isSealed = (value: unknown): value is Sealed =>
  typeof value === 'object' && value !== null && typeof (value as Partial<Sealed>).enc === 'string';

const sensitiveNames = (definition: WithFields): Set<string> =>
  new Set(definition.fields.filter((field) => field.sensitive).map((field) => field.name));

export function sealCredentials(
  definition: WithFields,
  config: Record<string, unknown>,
  secrets: Secrets,
): StoredCredentials {
  const sensitive = sensitiveNames(definition);
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => [
      name,
      sensitive.has(name) && typeof value === 'string' && value !== '' ? { enc: secrets.seal(value) } : value,
    ]),
  );
}

/** The configuration's fields in clear: only for building an adapter, never for a response or a log. */
export function openCredentials(stored: StoredCredentials, secrets: Secrets): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(stored).map(([name, value]) => [name, isSealed(value) ? secrets.open(value.enc) : value]),
  );
}

/** Every character but the last four becomes `*`; four characters or fewer are masked whole. */
export function maskSecret(value: string): string {
  return value.length <= 4 ? '*'.repeat(value.length) : '*'.repeat(value.length - 4) + value.slice(-4);
}

/** The configuration as responses show it: sensitive values masked. */
export function maskedCredentials(
  definition: WithFields,
  stored: StoredCredentials,
  secrets: Secrets,
): Record<string, unknown> {
  const sensitive = sensitiveNames(definition);
  return Object.fromEntries(
    Object.entries(openCredentials(stored, secrets)).map(([name, value]) => [
      name,
      sensitive.has(name) && typeof value === 'string' ? maskSecret(value) : value,
    ]),
  );
}

/**
 * An update's fields merged over the stored ones. A sensitive value equal to the mask of the
 * stored secret keeps the stored secret, so a GET response can be sent back unchanged; any other
 * value (another run of `*` included) replaces it. Fields not sent keep their stored value.
 */
export function mergeUpdate(
  definition: WithFields,
  current: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> {
  const sensitive = sensitiveNames(definition);
  const merged = { ...current };
  for (const [name, value] of Object.entries(update)) {
    const stored = current[name];
    const unchangedMask =
      sensitive.has(name) && typeof stored === 'string' && typeof value === 'string' && value === maskSecret(stored);
    if (!unchangedMask) merged[name] = value;
  }
  return merged;
}

/**
 * The secrets an update would keep (not sent, or sent back masked) while it changes a field naming
 * where they are sent: such an update would hand the stored secret to a new address.
 */
export function secretsFollowingNewAddress(
  definition: WithFields & { addressFields?: string[] },
  current: Record<string, unknown>,
  update: Record<string, unknown>,
): { changedField: string; keptSecrets: string[] } | null {
  const changedField = definition.addressFields?.find((name) => name in update && update[name] !== current[name]);
  if (changedField === undefined) return null;
  const keptSecrets = [...sensitiveNames(definition)].filter((name) => {
    const stored = current[name];
    if (typeof stored !== 'string' || stored === '') return false;
    return !(name in update) || update[name] === maskSecret(stored);
  });
  return keptSecrets.length > 0 ? { changedField, keptSecrets } : null;
}
