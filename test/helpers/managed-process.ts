import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves once the process serves; `start` waits for it. */
  ready?: () => Promise<void>;
}

const TAIL_LINES = 40;

/**
 * A child process a crash test kills and starts again as often as it likes. An exit the test did
 * not ask for is kept, with the last lines of output, and thrown by `assertAlive`, so a test that
 * polls for progress fails at once instead of waiting out its timeout.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private unexpected: Error | undefined;
  private readonly tail: string[] = [];
  /** Children whose exit the test asked for. */
  private readonly killed = new WeakSet<ChildProcess>();

  constructor(private readonly spec: ProcessSpec) {}

  async start(): Promise<void> {
    if (this.child) throw new Error(`${this.spec.name} is already running`);
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.remember(chunk));
    }
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        if (this.killed.has(child)) return;
        const error = new Error(
          `${this.spec.name} exited by itself (code ${code}, signal ${signal}); last output:\n${this.tail.join('\n')}`,
        );
        this.unexpected ??= error;
        reject(error);
      });
      // Spawning failed (no such binary): no exit event follows.
      child.once('error', (error) => {
        if (this.child === child) this.child = undefined;
        this.unexpected ??= error;
        reject(error);
      });
    });
    exited.catch(() => undefined);
    if (this.spec.ready) await Promise.race([this.spec.ready(), exited]);
  }

  /** Sends `signal` and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.killed.add(child);
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  assertAlive(): void {
    if (this.unexpected) throw this.unexpected;
  }

  private remember(chunk: string): void {
    for (const line of chunk.split('\n')) if (line.trim()) this.tail.push(line);
    this.tail.splice(0, Math.max(0, this.tail.length - TAIL_LINES));
  }
}
