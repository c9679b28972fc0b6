import { TestEnvironment } from 'jest-environment-node';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';

/**
 * Jest's Node environment, with the typed-array constructors of Node's own realm. Jest gives each
 * test file fresh globals, so an array made by native code (onnxruntime-node's output tensors,
 * Buffers) fails `instanceof Float32Array` inside the test realm; onnxruntime checks exactly that.
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
  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    for (const name of TYPED_ARRAYS) (this.global as Record<string, unknown>)[name] = globalThis[name];
  }
}
