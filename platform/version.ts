import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The running version, read from package.json (found from source and from `dist/`). */
export const version: string = (() => {
  for (const candidate of [join(__dirname, '..', 'package.json'), join(__dirname, '..', '..', 'package.json')]) {
    try {
      return (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();
