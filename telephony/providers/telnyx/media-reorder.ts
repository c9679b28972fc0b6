/**
 * Puts Telnyx frames back in `sequence_number` order (§4.5: order is not guaranteed). Frames wait
 * for the missing one at most `window` frames (16 × 20 ms); then the gap is given up on.
 */
export class SequenceReorder<T> {
  private readonly held = new Map<number, T>();

  constructor(
    private readonly deliver: (item: T) => void,
    private next = 1,
    private readonly window = 16,
  ) {}

  push(sequence: number, item: T): void {
    // Late beyond the window, or repeated: already given up on.
    if (sequence < this.next) return;
    this.held.set(sequence, item);
    this.drain();
    if (this.held.size > this.window) {
      this.next = Math.min(...this.held.keys());
      this.drain();
    }
  }

  /** Delivers whatever is held, in order (the stream ended). */
  flush(): void {
    for (const sequence of [...this.held.keys()].sort((a, b) => a - b)) {
      const item = this.held.get(sequence) as T;
      this.held.delete(sequence);
      this.deliver(item);
    }
  }

  private drain(): void {
    for (let item = this.held.get(this.next); item !== undefined; item = this.held.get(this.next)) {
      this.held.delete(this.next);
      this.next += 1;
      this.deliver(item);
    }
  }
}
