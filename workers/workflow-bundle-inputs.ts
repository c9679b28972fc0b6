import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

/**
 * What a workflow bundle was made from, as webpack saw it: every file it read (with its content's
 * hash), every folder it listed, every path it looked for and did not find, and the versions of the
 * tools that made it. A bundle whose inputs are all unchanged is the bundle webpack would make again,
 * so `npm start` reuses it instead of bundling on every start.
 */
export interface BundleInputs {
  tools: string;
  bundle: string;
  files: Record<string, string>;
  folders: Record<string, string>;
  missing: string[];
}

type ConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The bundler, webpack and the loaders it runs: a new version of any of them may bundle differently. */
function toolVersions(): string {
  const bundler = dirname(require.resolve('@temporalio/worker/package.json'));
  const versions = ['@temporalio/worker', 'webpack', 'swc-loader', '@swc/core', 'source-map-loader'].map((name) => {
    const manifest = require.resolve(`${name}/package.json`, { paths: [bundler] });
    return `${name}@${(JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version}`;
  });
  // The bundling options themselves.
  return sha256([...versions, readFileSync(require.resolve('./workflow-code'), 'utf8')].join('\n'));
}

const folderListing = (path: string): string => sha256(readdirSync(path).sort().join('\n'));

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();

/**
 * A webpack configuration hook that records the compilation's inputs, and `inputs(code)` to read
 * them once the bundle `code` is made. Files only webpack's in-memory file system holds (the
 * bundler's generated entry point, which the bundling options determine) are left out.
 */
export function recordBundleInputs(): { hook: ConfigHook; inputs(code: string): BundleInputs | undefined } {
  let seen: { files: string[]; folders: string[]; missing: string[] } | undefined;
  let startedAt = Date.now();
  const hook: ConfigHook = (config) => {
    startedAt = Date.now();
    return {
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('RecordBundleInputs', ({ compilation }) => {
              seen = {
                files: [...compilation.fileDependencies],
                folders: [...compilation.contextDependencies],
                missing: [...compilation.missingDependencies],
              };
            });
          },
        },
      ],
    };
  };
  /** Undefined when an input changed while webpack ran: the bundle may hold either version of it. */
  const inputs = (code: string): BundleInputs | undefined => {
    if (!seen) throw new Error('webpack reported no inputs for the bundle');
    const files = seen.files.filter(isFile);
    // Whole seconds: some file systems keep coarse modification times.
    if (files.some((path) => statSync(path).mtimeMs >= Math.floor(startedAt / 1000) * 1000)) return undefined;
    return {
      tools: toolVersions(),
      bundle: sha256(code),
      files: Object.fromEntries(files.map((path) => [path, sha256(readFileSync(path))])),
      folders: Object.fromEntries(
        seen.folders.filter((path) => existsSync(path)).map((path) => [path, folderListing(path)]),
      ),
      missing: seen.missing.filter((path) => !existsSync(path)),
    };
  };
  return { hook, inputs };
}

/** Where the inputs of the bundle at `bundlePath` are kept. */
export const inputsPathOf = (bundlePath: string): string => `${bundlePath}.inputs.json`;

/** Records `inputs` beside the bundle, or removes an older record when there are none to trust. */
export function writeBundleInputs(bundlePath: string, inputs: BundleInputs | undefined): void {
  if (inputs) writeFileSync(inputsPathOf(bundlePath), JSON.stringify(inputs));
  else rmSync(inputsPathOf(bundlePath), { force: true });
}

/**
 * True when the bundle at `bundlePath` is the one its recorded inputs made and none of them has
 * changed since: same tools, same file contents, same folder listings, nothing new where webpack
 * looked and found nothing.
 */
export function bundleIsCurrent(bundlePath: string): boolean {
  let recorded: BundleInputs;
  try {
    recorded = JSON.parse(readFileSync(inputsPathOf(bundlePath), 'utf8')) as BundleInputs;
    if (sha256(readFileSync(bundlePath)) !== recorded.bundle) return false;
  } catch {
    return false; // no bundle or no record of its inputs yet
  }
  try {
    return (
      recorded.tools === toolVersions() &&
      Object.entries(recorded.files).every(([path, hash]) => sha256(readFileSync(path)) === hash) &&
      Object.entries(recorded.folders).every(([path, listing]) => folderListing(path) === listing) &&
      recorded.missing.every((path) => !existsSync(path))
    );
  } catch {
    return false; // an input is gone
  }
}
