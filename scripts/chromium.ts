import { aptInstall, isRoot } from './apt-packages';
import { onPath } from './executables';

/** Debian's Chromium: the browser the web-call tests drive headless (playwright-core downloads none). */
export const CHROMIUM_PACKAGES = ['chromium'] as const;

/** The installed Chromium executable, or undefined. */
export const findChromium = (): string | undefined => onPath('chromium') ?? onPath('chromium-browser');

/**
 * Finds Chromium; installs Debian's package with apt-get when it is missing (CI may start on a
 * fresh machine). Not root: `sudo -n`, never a prompt.
 */
export async function ensureChromium(log: (line: string) => void = console.log): Promise<string> {
  const found = findChromium();
  if (found) return found;
  log(`Installing Chromium (${CHROMIUM_PACKAGES.join(', ')}) with apt-get...`);
  const code = await aptInstall(CHROMIUM_PACKAGES, log);
  const installed = findChromium();
  if (code === 0 && installed) return installed;
  throw new Error(
    `Could not install Chromium. Install the Debian package (apt-get install -y --no-install-recommends ` +
      `${CHROMIUM_PACKAGES.join(' ')})` +
      (isRoot() ? '.' : ' as root: `sudo -n` was refused.'),
  );
}

if (require.main === module) {
  ensureChromium().then(
    (path) => console.log(`Chromium: ${path}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
