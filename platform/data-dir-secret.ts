import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads `${dataDir}/${fileName}`, first creating it with `generate()` when it does not exist,
 * readable only by its owner. Local installs keep their generated keys here so they survive
 * restarts; production passes keys through the environment instead. Values are never logged.
 */
export function readOrCreateSecretFile(dataDir: string, fileName: string, generate: () => string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, fileName);
  const draft = `${file}.${process.pid}.tmp`;
  try {
    // Written whole, then linked into place: linking fails when the file exists, so when two
    // processes start together one value wins and nobody reads a half-written file.
    writeFileSync(draft, generate(), { mode: 0o600 });
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readFileSync(file, 'utf8').trim();
}
