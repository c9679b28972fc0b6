import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt costs about a quarter of a second of CPU per hash: run on the API's main thread it would
 * stall every request and live call beside it. Hashes run in worker threads instead. The worker
 * is plain JavaScript, so it runs the same from source, from `dist/` and under jest.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', ({ id, password, hash, rounds }) => {
  try {
    const result = hash === undefined ? bcrypt.hashSync(password, rounds) : bcrypt.compareSync(password, hash);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
});`;

interface Job {
  id: number;
  password: string;
  hash?: string;
  rounds: number;
  resolve: (result: string | boolean) => void;
  reject: (error: Error) => void;
}

interface HashThread {
  worker: Worker;
  job?: Job;
}

const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
const threads: HashThread[] = [];
const queue: Job[] = [];
let nextJobId = 1;

function startThread(): HashThread {
  const thread: HashThread = {
    worker: new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath: require.resolve('bcryptjs') } }),
  };
  thread.worker.on('message', (message: { id: number; result?: string | boolean; error?: string }) => {
    const job = thread.job;
    thread.job = undefined;
    if (job?.id === message.id) {
      if (message.error !== undefined || message.result === undefined) job.reject(new Error(message.error));
      else job.resolve(message.result);
    }
    dispatch();
  });
  thread.worker.on('error', (error) => {
    thread.job?.reject(error);
    threads.splice(threads.indexOf(thread), 1);
    dispatch();
  });
  threads.push(thread);
  return thread;
}

function dispatch(): void {
  while (queue.length > 0) {
    const idle = threads.find((thread) => !thread.job) ?? (threads.length < THREADS ? startThread() : undefined);
    if (!idle) return;
    const job = queue.shift() as Job;
    idle.job = job;
    // A busy thread keeps the process alive until its answer arrives; an idle one does not.
    idle.worker.ref();
    idle.worker.postMessage({ id: job.id, password: job.password, hash: job.hash, rounds: job.rounds });
  }
  for (const thread of threads) if (!thread.job) thread.worker.unref();
}

function run<T extends string | boolean>(password: string, rounds: number, hash?: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ id: nextJobId++, password, hash, rounds, resolve: resolve as Job['resolve'], reject });
    dispatch();
  });
}

/**
 * A bcrypt hash of `password` with 2^`rounds` rounds (PASSWORD_HASH_ROUNDS). `compare` reads the
 * rounds from each stored hash, so changing them later only changes new hashes.
 */
export const hashPassword = (password: string, rounds: number): Promise<string> => run<string>(password, rounds);

// Compared against when the email is unknown, so that a login takes as long whether or not the
// account exists and its timing does not reveal registered emails. Made on first use, not at import,
// one per work factor new accounts get.
const unknownUserHashes = new Map<number, Promise<string>>();

/**
 * True when `password` matches `hash`; with no hash, spends the time of a hash with `rounds` rounds
 * (new accounts' work factor) and answers false.
 */
export async function verifyPassword(password: string, hash: string | undefined, rounds: number): Promise<boolean> {
  if (hash === undefined) {
    let unknownUserHash = unknownUserHashes.get(rounds);
    if (!unknownUserHash) {
      unknownUserHash = hashPassword('no account has this password', rounds);
      unknownUserHashes.set(rounds, unknownUserHash);
    }
    await run<boolean>(password, rounds, await unknownUserHash);
    return false;
  }
  return run<boolean>(password, rounds, hash);
}
