/** A completed document as a cache keys it: its id and when it completed (`completed_at` as text, to the microsecond). */
export interface CompletedDocument {
  id: string;
  completedAt: string;
}

/**
 * What a process keeps of completed documents for searching them (their chunks' words, their
 * vectors), up to a budget of `sizeOf` units, the least recently used going first. A completed
 * document's chunks never change, and each entry is keyed by the document's id and the moment it
 * completed, so a document that was deleted or processed again is never answered from an old entry,
 * whichever process wrote it. Which documents a search may see is decided by its caller each time.
 */
export class CompletedDocumentCache<Context, T> {
  private readonly entries = new Map<string, Promise<T>>();
  private readonly sizes = new Map<string, number>();
  private cachedSize = 0;

  constructor(
    private readonly budget: number,
    private readonly sizeOf: (value: T) => number,
    private readonly load: (context: Context, documentId: string) => Promise<T>,
  ) {}

  /** The document's entry, loaded with `context` (e.g. a database connection) when not kept. */
  get(context: Context, document: CompletedDocument): Promise<T> {
    const key = `${document.id}@${document.completedAt}`;
    const cached = this.entries.get(key);
    if (cached) {
      // Most recently used last (a Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const loading = this.load(context, document.id);
    this.entries.set(key, loading);
    loading.then(
      (value) => this.admit(key, this.sizeOf(value)),
      () => this.entries.delete(key),
    );
    return loading;
  }

  private admit(key: string, size: number): void {
    if (!this.entries.has(key)) return;
    this.sizes.set(key, size);
    this.cachedSize += size;
    for (const oldest of this.entries.keys()) {
      if (this.cachedSize <= this.budget || oldest === key) break;
      const oldestSize = this.sizes.get(oldest);
      if (oldestSize === undefined) continue;
      this.entries.delete(oldest);
      this.sizes.delete(oldest);
      this.cachedSize -= oldestSize;
    }
  }
}
