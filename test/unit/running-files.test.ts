import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningFiles, waitRecordOf } from '../helpers/running-files';

/** Another jest worker, as far as the markers tell: a live process that exits when told. */
const otherWorker = (): ChildProcess => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
const exited = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));
/** Whether `promise` settles within `ms`; the timer goes with the answer, so no file outlives its tests. */
const settledWithin = async (promise: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

const folder = () => mkdtempSync(join(tmpdir(), 'running-files-'));
const quiet = () => undefined;
const files = (dir: string) => new RunningFiles(dir, quiet);

it('holds a file that runs alone until the other workers finish their files, and records the wait', async () => {
  const dir = folder();
  const worker = otherWorker();
  writeFileSync(join(dir, String(worker.pid)), '');
  const entered = files(dir).enterAlone('test/voice/live.test.ts');
  expect(await settledWithin(entered, 1_500)).toBe(false);
  worker.kill();
  await exited(worker);
  expect(await settledWithin(entered, 5_000)).toBe(true);
  expect(Number(readFileSync(waitRecordOf(dir, 'test/voice/live.test.ts'), 'utf8'))).toBeGreaterThanOrEqual(1_500);
});

it('waits for another file that runs alone to release the lock', async () => {
  const dir = folder();
  const holder = otherWorker();
  writeFileSync(join(dir, 'run-alone.lock'), String(holder.pid));
  const entered = files(dir).enterAlone('test/e2e/audio.test.ts');
  expect(await settledWithin(entered, 1_500)).toBe(false);
  holder.kill();
  await exited(holder);
  expect(await settledWithin(entered, 5_000)).toBe(true);
});

it('holds a shared file while a file that runs alone waits or runs', async () => {
  const dir = folder();
  const alone = otherWorker();
  writeFileSync(join(dir, `alone-${alone.pid}`), 'test/voice/live.test.ts');
  const entered = files(dir).enterShared('test/unit/x.test.ts');
  expect(await settledWithin(entered, 1_500)).toBe(false);
  alone.kill();
  await exited(alone);
  expect(await settledWithin(entered, 5_000)).toBe(true);
  expect(existsSync(join(dir, String(process.pid)))).toBe(true);
});

it('ignores markers and a lock left by workers that died', async () => {
  const dir = folder();
  const dead = otherWorker();
  dead.kill();
  await exited(dead);
  writeFileSync(join(dir, String(dead.pid)), '');
  writeFileSync(join(dir, `alone-${dead.pid}`), '');
  writeFileSync(join(dir, 'run-alone.lock'), String(dead.pid));
  expect(await settledWithin(files(dir).enterAlone('test/x.test.ts'), 2_000)).toBe(true);
  expect(await settledWithin(files(dir).enterShared('test/y.test.ts'), 2_000)).toBe(true);
});

it('removes its markers and lock when it leaves', async () => {
  const dir = folder();
  const running = files(dir);
  await running.enterAlone('test/x.test.ts');
  expect(existsSync(join(dir, `alone-${process.pid}`))).toBe(true);
  running.leave();
  expect(existsSync(join(dir, `alone-${process.pid}`))).toBe(false);
  expect(existsSync(join(dir, 'run-alone.lock'))).toBe(false);
  await running.enterShared('test/y.test.ts');
  running.leave();
  expect(existsSync(join(dir, String(process.pid)))).toBe(false);
});

it('lets as many files that run alone run together as it is told, and holds the next one', async () => {
  const dir = folder();
  const [first, second] = [otherWorker(), otherWorker()];
  writeFileSync(join(dir, 'run-alone.lock'), String(first.pid));
  writeFileSync(join(dir, 'run-alone-1.lock'), String(second.pid));
  // A third slot is free.
  const third = files(dir);
  expect(await settledWithin(third.enterAlone('test/e2e/audio.test.ts', 3), 2_000)).toBe(true);
  expect(readFileSync(join(dir, 'run-alone-2.lock'), 'utf8')).toBe(String(process.pid));
  third.leave();
  expect(existsSync(join(dir, 'run-alone-2.lock'))).toBe(false);
  // Two at a time: both slots are taken until a holder ends.
  const entered = files(dir).enterAlone('test/voice/live.test.ts', 2);
  expect(await settledWithin(entered, 1_500)).toBe(false);
  second.kill();
  await exited(second);
  expect(await settledWithin(entered, 5_000)).toBe(true);
  expect(readFileSync(join(dir, 'run-alone-1.lock'), 'utf8')).toBe(String(process.pid));
  first.kill();
  await exited(first);
});
