/**
 * Remembers webhook nonces for a while, so a captured request replayed within the window fails
 * verification. Plivo and Vobiz sign with a nonce but no timestamp, so this is their only replay
 * defence. It is per process: behind several API processes a replay may reach another one.
 */
export class NonceCache {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 15 * 60_000,
    private readonly maxEntries = 100_000,
  ) {}

  /** True the first time a nonce is seen within the window; false for a replay. */
  claim(nonce: string, nowMs = Date.now()): boolean {
    this.evict(nowMs);
    const seenAt = this.seen.get(nonce);
    if (seenAt !== undefined && nowMs - seenAt < this.ttlMs) return false;
    this.seen.set(nonce, nowMs);
    return true;
  }

  private evict(nowMs: number): void {
    // Insertion order is age order, so expired entries are at the front.
    for (const [nonce, seenAt] of this.seen) {
      if (nowMs - seenAt < this.ttlMs && this.seen.size < this.maxEntries) break;
      this.seen.delete(nonce);
    }
  }
}
