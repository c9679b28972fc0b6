import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { POCKETSPHINX_MODEL_DIR, pocketsphinxModel } from '../voice/speech/pocketsphinx-stt';
import { onPath } from './executables';

/** Debian bookworm packages of the offline speech engines: no account, no network at run time. */
export const SPEECH_PACKAGES = ['espeak-ng', 'pocketsphinx', 'pocketsphinx-en-us'] as const;

export interface SpeechTools {
  espeak: string;
  pocketsphinx: string;
  /** Acoustic model directory (`-hmm`), language model (`-lm`) and dictionary (`-dict`). */
  model: { hmm: string; lm: string; dict: string };
}

/** The installed tools, or null when any part is missing. */
export function findSpeechTools(modelDir = POCKETSPHINX_MODEL_DIR): SpeechTools | null {
  const espeak = onPath('espeak-ng');
  const pocketsphinx = onPath('pocketsphinx_continuous');
  const model = pocketsphinxModel(modelDir);
  if (!espeak || !pocketsphinx || !Object.values(model).every((path) => existsSync(path))) return null;
  return { espeak, pocketsphinx, model };
}

/** Runs a command, passing its output to `log` line by line; resolves with its exit code. */
function run(command: string, args: string[], log: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    // apt must never stop to ask (debconf) when CI or jest runs it.
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let tail = '';
    const forward = (chunk: Buffer) => {
      const lines = (tail + chunk.toString()).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', (error) => {
      log(`  ${command}: ${error.message}`);
      resolve(127);
    });
    child.on('close', (code) => {
      if (tail.trim()) log(`  ${tail}`);
      resolve(code ?? 1);
    });
  });
}

/** Package lists count as missing when apt has no `*_Packages*` index at all (a fresh container). */
const haveAptLists = (): boolean => {
  try {
    return readdirSync('/var/lib/apt/lists').some((name) => name.includes('_Packages'));
  } catch {
    return false;
  }
};

/**
 * Finds espeak-ng and PocketSphinx with its en-us model; installs the Debian packages when missing
 * (CI may start on a fresh machine, and the tests need them). Not root: `sudo -n`, never a prompt.
 */
export async function ensureSpeechTools(log: (line: string) => void = console.log): Promise<SpeechTools> {
  const found = findSpeechTools();
  if (found) return found;

  const asRoot = process.getuid?.() === 0;
  const apt = (args: string[]) => (asRoot ? run('apt-get', args, log) : run('sudo', ['-n', 'apt-get', ...args], log));
  const install = () => apt(['install', '-y', '--no-install-recommends', ...SPEECH_PACKAGES]);
  log(`Installing the offline speech engines (${SPEECH_PACKAGES.join(', ')}) with apt-get...`);

  let code = haveAptLists() ? await install() : 100;
  if (code !== 0) {
    // Stale or absent package lists are the usual cause ("Unable to locate package").
    log('Running apt-get update first...');
    if ((await apt(['update'])) === 0) code = await install();
  }
  const tools = findSpeechTools();
  if (code === 0 && tools) return tools;
  throw new Error(
    `Could not install the offline speech engines. Install the Debian packages ${SPEECH_PACKAGES.join(' ')} ` +
      `(apt-get install -y --no-install-recommends ${SPEECH_PACKAGES.join(' ')})` +
      (asRoot ? '.' : ' as root: `sudo -n` was refused.'),
  );
}

if (require.main === module) {
  const started = Date.now();
  ensureSpeechTools()
    .then((tools) =>
      console.log(`${tools.espeak}, ${tools.pocketsphinx}, ${tools.model.hmm} (${Date.now() - started} ms)`),
    )
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
