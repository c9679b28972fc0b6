import type { DataSource } from 'typeorm';
import type { Logger } from '../../platform/logger';

const INTERVAL_MS = 60_000;
// Bounds the memo; past it the memo starts over, which costs at most one extra UPDATE per key.
const MAX_REMEMBERED_KEYS = 10_000;

export type ApiKeyUsageRecorder = (apiKeyId: number) => void;

/**
 * Keeps `api_keys.last_used_at` current to the minute without a write per request: this process
 * remembers when it last recorded each key, and the UPDATE itself only writes a row last touched
 * over a minute ago (another replica may have done it). It runs beside the request, not in its path.
 */
export function createApiKeyUsageRecorder(dataSource: DataSource, logger: Logger): ApiKeyUsageRecorder {
  const lastRecorded = new Map<number, number>();
  return (apiKeyId) => {
    const now = Date.now();
    const previous = lastRecorded.get(apiKeyId);
    if (previous !== undefined && now - previous < INTERVAL_MS) return;
    if (lastRecorded.size >= MAX_REMEMBERED_KEYS) lastRecorded.clear();
    lastRecorded.set(apiKeyId, now);
    void dataSource
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [apiKeyId],
      )
      .catch((error: unknown) => {
        // Allow the next request to try again.
        lastRecorded.delete(apiKeyId);
        logger.warn({ err: error, api_key_id: apiKeyId }, 'could not record API key use');
      });
  };
}
