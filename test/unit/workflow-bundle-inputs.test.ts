import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bundleIsCurrent,
  inputsPathOf,
  recordBundleInputs,
  writeBundleInputs,
  type BundleInputs,
} from '../../workers/workflow-bundle-inputs';

type Done = (stats: { compilation: Record<string, Set<string>> }) => void;

/** What webpack reports when it is done, through the recorder's plugin, without running webpack. */
function bundled(seen: { files: string[]; folders?: string[]; missing?: string[] }, code: string) {
  const recorder = recordBundleInputs();
  const plugin = recorder.hook({}).plugins?.[0] as { apply(compiler: unknown): void };
  let done: Done | undefined;
  plugin.apply({ hooks: { done: { tap: (_: string, callback: Done) => (done = callback) } } });
  done?.({
    compilation: {
      fileDependencies: new Set(seen.files),
      contextDependencies: new Set(seen.folders ?? []),
      missingDependencies: new Set(seen.missing ?? []),
    },
  });
  return recorder.inputs(code);
}

describe('a workflow bundle reused while its inputs are unchanged', () => {
  let dir: string;
  let bundle: string;
  let source: string;
  let folder: string;
  const lookedFor = () => join(dir, 'src', 'missing.ts');
  const anHourAgo = () => new Date(Date.now() - 3_600_000);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bundle-inputs-'));
    folder = join(dir, 'src');
    mkdirSync(folder);
    source = join(folder, 'workflow.ts');
    writeFileSync(source, 'export const a = 1;\n');
    utimesSync(source, anHourAgo(), anHourAgo());
    bundle = join(dir, 'workflow-bundle.js');
    writeFileSync(bundle, 'bundle of a = 1');
    const inputs = bundled(
      // The bundler's generated entry point exists only in webpack's memory: left out.
      { files: [source, join(dir, 'entrypoint.cjs')], folders: [folder], missing: [lookedFor()] },
      'bundle of a = 1',
    );
    writeBundleInputs(bundle, inputs);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is current while nothing changed', () => {
    expect(bundleIsCurrent(bundle)).toBe(true);
  });

  it('is not current once a file it was made from changes', () => {
    writeFileSync(source, 'export const a = 2;\n');
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('is not current once a path webpack looked for exists, or a folder it listed gains a file', () => {
    writeFileSync(lookedFor(), 'export const b = 1;\n');
    expect(bundleIsCurrent(bundle)).toBe(false);
    rmSync(lookedFor());
    expect(bundleIsCurrent(bundle)).toBe(true);
    writeFileSync(join(folder, 'other.ts'), '');
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('is not current when the bundle is not the one recorded, an input is gone, or nothing was recorded', () => {
    writeFileSync(bundle, 'another bundle');
    expect(bundleIsCurrent(bundle)).toBe(false);
    writeFileSync(bundle, 'bundle of a = 1');
    rmSync(source);
    expect(bundleIsCurrent(bundle)).toBe(false);
    rmSync(inputsPathOf(bundle));
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('is not current when the bundling tools were others', () => {
    const inputs = bundled({ files: [source] }, 'bundle of a = 1') as BundleInputs;
    writeBundleInputs(bundle, { ...inputs, tools: 'another webpack' });
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('records nothing, and forgets the older record, when an input changed while webpack ran', () => {
    writeFileSync(source, 'export const a = 3;\n');
    const inputs = bundled({ files: [source] }, 'bundle of a = 1 or 3');
    expect(inputs).toBeUndefined();
    writeBundleInputs(bundle, inputs);
    expect(existsSync(inputsPathOf(bundle))).toBe(false);
  });
});
