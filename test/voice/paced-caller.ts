import type { MediaClient } from './provider-media-clients';

/**
 * A caller on a provider's media stream, as a phone network delivers one: a 20 ms frame every
 * 20 ms, silence when nobody speaks (providers stream continuously), speech when `say` queues it.
 */
export class PacedCaller {
  private readonly frame: number;
  private queue: Int16Array[] = [];
  private sent = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Wall clock (ms) at which the first queued speech went out, per `say`. */
  readonly spokeAt: number[] = [];
  private pendingSay = false;

  constructor(private readonly client: MediaClient) {
    this.frame = client.rate / 50;
  }

  start(): void {
    this.startedAt = Date.now();
    this.timer = setInterval(() => this.tick(), 20);
  }

  /** Speech at the client's rate, after whatever is still queued. */
  say(samples: Int16Array): void {
    this.queue.push(samples);
    this.pendingSay = true;
  }

  get speaking(): boolean {
    return this.queue.length > 0;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const due = Math.floor((Date.now() - this.startedAt) / 20);
    while (this.sent < due && this.client.socket.readyState === this.client.socket.OPEN) {
      this.sent += 1;
      if (this.pendingSay && this.queue.length > 0) {
        this.spokeAt.push(Date.now());
        this.pendingSay = false;
      }
      this.client.sendCallerFrame(this.next());
    }
  }

  private next(): Int16Array {
    const out = new Int16Array(this.frame);
    let filled = 0;
    while (filled < this.frame && this.queue.length > 0) {
      const head = this.queue[0] as Int16Array;
      const used = Math.min(head.length, this.frame - filled);
      out.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(used);
    }
    return out;
  }
}
