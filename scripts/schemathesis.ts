import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isExecutable, onPath } from './executables';

/** The contract fuzzer, pinned: a new release may add checks, so upgrading is a deliberate change. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** A virtual environment outside the repository, shared by every clone on the machine. */
export const venvDir = (env: NodeJS.ProcessEnv = process.env): string =>
  join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchboard', `schemathesis-v${SCHEMATHESIS_VERSION}-venv`);

function run(command: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const relay = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${tail}`)),
    );
  });
}

/**
 * The `schemathesis` executable: SCHEMATHESIS_PATH, else the cached virtual environment, built
 * once with the machine's Python 3 (3.10 or newer) and pip from PyPI.
 */
export async function provisionSchemathesis(
  log: (line: string) => void = console.log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const explicit = env.SCHEMATHESIS_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`SCHEMATHESIS_PATH=${explicit} is not an executable file.`);
    return explicit;
  }
  const dir = venvDir(env);
  const executable = join(dir, 'bin', 'schemathesis');
  if (isExecutable(executable)) return executable;

  const python = onPath('python3', env);
  if (!python) {
    throw new Error(
      'Python 3 is not installed, so schemathesis cannot be installed for the contract test. Install python3 ' +
        `(with its venv module), or set SCHEMATHESIS_PATH to a schemathesis ${SCHEMATHESIS_VERSION} executable.`,
    );
  }
  log(`Installing schemathesis ${SCHEMATHESIS_VERSION} once into ${dir} (about a minute)...`);
  const started = Date.now();
  mkdirSync(dir, { recursive: true });
  try {
    await run(python, ['-m', 'venv', dir], log);
    await run(
      join(dir, 'bin', 'python'),
      [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--progress-bar',
        'off',
        `schemathesis==${SCHEMATHESIS_VERSION}`,
      ],
      log,
    );
  } catch (error) {
    // A half-built environment must not pass for a ready one next time.
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `Could not install schemathesis ${SCHEMATHESIS_VERSION} (needs python3 with venv and pip, and PyPI): ` +
        (error instanceof Error ? error.message : String(error)),
    );
  }
  log(`Installed schemathesis in ${Math.round((Date.now() - started) / 1000)} s.`);
  return executable;
}

if (require.main === module) {
  provisionSchemathesis()
    .then((path) => console.log(path))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
