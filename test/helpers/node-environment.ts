import { relative } from 'node:path';
import { TestEnvironment } from 'jest-environment-node';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { RunningFiles } from './running-files';
import { TEST_ENV } from './test-env';

/**
 * Jest's Node environment, with the typed-array constructors of Node's own realm. Jest gives each
 * test file fresh globals, so an array made by native code (onnxruntime-node's output tensors,
 * Buffers) fails `instanceof Float32Array` inside the test realm; onnxruntime checks exactly that.
 *
 * A file listed in `testEnvironmentOptions.runAlone` (real-time audio, which a neighbour's load
 * would delay) runs while no other file of the run does: jest's sequencer
 * (test/jest/run-alone-first.js) starts those files first, on the freshly started servers, and
 * other files wait for them.
 */
const TYPED_ARRAYS = [
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'ArrayBuffer',
] as const;

export default class NodeEnvironment extends TestEnvironment {
  private readonly running?: RunningFiles;
  private readonly file: string;
  private readonly alone: boolean;
  private readonly aloneAtOnce: number;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    for (const name of TYPED_ARRAYS) (this.global as Record<string, unknown>)[name] = globalThis[name];
    const { rootDir, testEnvironmentOptions } = config.projectConfig;
    this.file = relative(rootDir, context.testPath);
    const runAlone = (testEnvironmentOptions.runAlone as string[] | undefined) ?? [];
    this.alone = runAlone.includes(this.file);
    this.aloneAtOnce = (testEnvironmentOptions.runAloneAtOnce as number | undefined) ?? 1;
    // Only a run with the global setup (several files on shared servers) tracks its files.
    const folder = process.env[TEST_ENV.runningFiles];
    if (folder) this.running = new RunningFiles(folder);
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (this.alone) await this.running?.enterAlone(this.file, this.aloneAtOnce);
    else await this.running?.enterShared(this.file);
  }

  override async teardown(): Promise<void> {
    this.running?.leave();
    await super.teardown();
  }
}
