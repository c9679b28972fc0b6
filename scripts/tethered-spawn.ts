import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { onPath } from './executables';

/**
 * Spawns a service in a process group of its own (a terminal's Ctrl-C reaches only its parent,
 * which stops the services in order) that still dies with its parent, whatever kills the parent:
 * util-linux's `setpriv --pdeathsig` asks the kernel to send `deathSignal` when the parent exits.
 * Where setpriv is missing (not Linux), the child is only detached, and `tethered` is false.
 */
export function spawnTethered(
  command: string,
  args: string[],
  options: SpawnOptions & { deathSignal: NodeJS.Signals },
): { child: ChildProcess; tethered: boolean } {
  const { deathSignal, ...spawnOptions } = options;
  const setpriv = process.platform === 'linux' ? onPath('setpriv') : undefined;
  const child = setpriv
    ? spawn(setpriv, ['--pdeathsig', deathSignal.replace(/^SIG/, ''), '--', command, ...args], {
        ...spawnOptions,
        detached: true,
      })
    : spawn(command, args, { ...spawnOptions, detached: true });
  return { child, tethered: setpriv !== undefined };
}

/** Resolves once `child` has exited (at once if it already has); false when `ms` ran out first. */
export const exitWithin = (child: ChildProcess, ms: number): Promise<boolean> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done(true);
    const timer = setTimeout(() => done(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      done(true);
    });
  });
