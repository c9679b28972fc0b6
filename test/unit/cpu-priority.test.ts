import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { join } from 'node:path';

/**
 * In a process of its own, since a lowered priority cannot be raised back without privileges:
 * lowers it, then starts a thread, and reports every thread's nice value.
 */
const niceValuesAfterLowering = (nice: number): number[] => {
  const script = `
    const { readdirSync } = require('node:fs');
    const { getPriority } = require('node:os');
    const { Worker } = require('node:worker_threads');
    require(${JSON.stringify(join(__dirname, '..', '..', 'platform', 'cpu-priority.ts'))}).lowerCpuPriority(${nice});
    const thread = new Worker('setTimeout(() => {}, 1000)', { eval: true });
    thread.on('online', () => {
      console.log(JSON.stringify(readdirSync('/proc/self/task').map((id) => getPriority(Number(id)))));
      void thread.terminate();
    });
  `;
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' }),
  ) as number[];
};

describe('lowerCpuPriority', () => {
  it('lowers every running thread, and threads started later inherit it', () => {
    const before = getPriority();
    const values = niceValuesAfterLowering(7);
    // The main thread, V8's and libuv's threads, and the thread started afterwards.
    expect(values.length).toBeGreaterThan(2);
    for (const value of values) expect(value).toBe(Math.max(7, before));
  });

  it('leaves the process alone at 0', () => {
    const values = niceValuesAfterLowering(0);
    expect(new Set(values).size).toBe(1);
  });
});
