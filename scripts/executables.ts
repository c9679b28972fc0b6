import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` on `env.PATH`, as a shell would find it. */
export const onPath = (name: string, env: NodeJS.ProcessEnv = process.env): string | undefined =>
  (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(isExecutable);
