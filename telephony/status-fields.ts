/** A provider's duration field (seconds, as a string or number) as `durationSeconds`, when present. */
export function durationOf(value: unknown): { durationSeconds?: number } {
  if (value === null || value === undefined || value === '') return {};
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? { durationSeconds: Math.round(seconds) } : {};
}
