import { ProviderError } from './provider';

/** A provider's duration field (seconds, as a string or number) as `durationSeconds`, when present. */
export function durationOf(value: unknown): { durationSeconds?: number } {
  if (value === null || value === undefined || value === '') return {};
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? { durationSeconds: Math.round(seconds) } : {};
}

/** A JSON webhook body that must be an object; anything else is not a status event of `provider`. */
export function jsonObjectBody(rawBody: string, provider: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(rawBody);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to the error below.
  }
  throw new ProviderError(`${provider} webhook body is not a JSON object`);
}
