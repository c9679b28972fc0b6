// @ts-check
const { join } = require('node:path');
const { HEAVY, REALTIME, UNIT_FOLDERS, NEED_SETUP, not, common, servers, run } = require('./parts');

const base = common(join(__dirname, '..', '..'));

/**
 * The suite by cost, one tier per `npm run test:<tier>`: unit (no servers, seconds), integration
 * (the run's PostgreSQL, Temporal and workflow bundle), e2e (suites that start their own
 * processes), realtime (live audio, run with --runInBand).
 * @type {import('jest').Config}
 */
module.exports = {
  rootDir: base.rootDir,
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: [...UNIT_FOLDERS.map((folder) => `**/test/${folder}/**/*.test.ts`), ...not(NEED_SETUP), ...not(HEAVY)],
    },
    {
      ...base,
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
    { ...base, ...servers, displayName: 'realtime', testMatch: REALTIME },
    {
      ...base,
      ...servers,
      displayName: 'e2e',
      testMatch: [...HEAVY.map((glob) => glob.replace(/\*\*$/, '**/*.test.ts')), ...not(REALTIME)],
    },
  ],
  ...run,
  reporters: ['default', '<rootDir>/test/helpers/slowest-files-reporter.js'],
};
