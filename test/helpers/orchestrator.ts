import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { canListen } from '../../scripts/port-holder';

/**
 * An npm command that starts services (`npm start`, `npm run start:cluster`) run as a user runs
 * it in a terminal: in a process group of its own, ready once it prints "Ready in … s" and
 * "Press Ctrl-C to stop.", stopped by a signal to the whole group.
 */

export interface Started {
  child: ChildProcess;
  output: () => string;
  readySeconds: number;
}

export function startUntilReady(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 180_000,
): Promise<Started> {
  const child = spawn('npm', args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm ${args.join(' ')} not ready within ${timeoutMs / 1000} s:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Ready in ([\d.]+) s/.exec(output);
      if (ready && output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, output: () => output, readySeconds: Number(ready[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** Sends `signal` to the whole process group, as a terminal's Ctrl-C or an OOM killer would. */
export const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => process.kill(-(child.pid ?? 0), signal);

/**
 * Resolves when the command and every service it started have exited: the services write to the
 * same output pipes as the orchestrator, so the pipes close only after the last of them.
 */
export const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.stdout?.closed && child.stderr?.closed) return resolve();
    child.once('close', () => resolve());
  });

const readProc = (pid: string, file: string): string => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').join(' ');
  } catch {
    return ''; // gone while we looked, or not ours to read
  }
};

/** Processes whose command line or environment names any of `marks` (a folder, a port setting). */
export function survivors(marks: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const command = readProc(entry, 'cmdline');
    if (command && marks.some((mark) => command.includes(mark) || readProc(entry, 'environ').includes(mark))) {
      found.push(`${entry}: ${command}`);
    }
  }
  return found;
}

/** No process names `marks` and every one of `ports` can be listened on again, within `withinMs`. */
export async function expectNothingLeft(marks: string[], ports: number[], withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let left: string[] = [];
  for (;;) {
    const held = [];
    for (const port of ports) if (!(await canListen(port))) held.push(port);
    left = [...survivors(marks), ...held.map((port) => `port ${port} still held`)];
    if (left.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(left).toEqual([]);
}
