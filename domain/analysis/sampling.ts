/**
 * Whether a run falls in a QA node's sample: decided by a hash of the run id alone (FNV-1a, 32
 * bits), so a replay, a retry or a rerun of the same run always decides the same, and about
 * `ratePercent` of runs are in. Buckets are hundredths of a percent.
 */
export function inSample(runId: number, ratePercent: number): boolean {
  if (ratePercent >= 100) return true;
  if (ratePercent <= 0) return false;
  return sampleBucket(runId) < Math.round(ratePercent * 100);
}

/** The run's bucket, 0 to 9,999. */
export function sampleBucket(runId: number): number {
  let hash = 0x811c9dc5;
  for (const char of `run:${runId}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 10_000;
}
