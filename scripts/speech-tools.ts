import { existsSync } from 'node:fs';
import { POCKETSPHINX_MODEL_DIR, pocketsphinxModel } from '../voice/speech/pocketsphinx-stt';
import { aptInstall, isRoot } from './apt-packages';
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

/**
 * Finds espeak-ng and PocketSphinx with its en-us model; installs the Debian packages when missing
 * (CI may start on a fresh machine, and the tests need them). Not root: `sudo -n`, never a prompt.
 */
export async function ensureSpeechTools(log: (line: string) => void = console.log): Promise<SpeechTools> {
  const found = findSpeechTools();
  if (found) return found;

  log(`Installing the offline speech engines (${SPEECH_PACKAGES.join(', ')}) with apt-get...`);
  const code = await aptInstall(SPEECH_PACKAGES, log);
  const tools = findSpeechTools();
  if (code === 0 && tools) return tools;
  throw new Error(
    `Could not install the offline speech engines. Install the Debian packages ${SPEECH_PACKAGES.join(' ')} ` +
      `(apt-get install -y --no-install-recommends ${SPEECH_PACKAGES.join(' ')})` +
      (isRoot() ? '.' : ' as root: `sudo -n` was refused.'),
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
