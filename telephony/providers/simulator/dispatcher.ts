/**
 * Delivers the simulator's status webhooks on timers in the process that placed the call. A
 * restart loses the pending timers: the call workflow then learns the outcome through
 * `getCallStatus`, which the database and the clock answer in any process.
 */
export class SimulatorDispatcher {
  private readonly pending = new Map<string, NodeJS.Timeout[]>();

  /** Runs each delivery after its delay; deliveries report their own failures. */
  schedule(callId: string, deliveries: { afterMs: number; deliver: () => Promise<void> }[]): void {
    this.cancel(callId);
    const timers = deliveries.map(({ afterMs, deliver }, index) => {
      const timer = setTimeout(() => {
        if (index === deliveries.length - 1) this.pending.delete(callId);
        void deliver();
      }, afterMs);
      // Pending webhooks never keep a process alive that is otherwise done.
      timer.unref();
      return timer;
    });
    this.pending.set(callId, timers);
  }

  cancel(callId: string): void {
    for (const timer of this.pending.get(callId) ?? []) clearTimeout(timer);
    this.pending.delete(callId);
  }

  /** Cancels every pending delivery (shutdown, tests). */
  close(): void {
    for (const callId of [...this.pending.keys()]) this.cancel(callId);
  }
}

/** The dispatcher of this process, shared by every simulator provider instance. */
export const processDispatcher = new SimulatorDispatcher();
