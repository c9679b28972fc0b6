// @ts-check
const { availableParallelism } = require('node:os');
const { common, servers, run } = require('./test/jest/parts');

/**
 * The whole suite in one run, as `npm test` and CI run it: every file on the run's servers, the
 * files that must run alone first (test/jest/run-alone-first.js). `npm run test:unit`,
 * `test:integration`, `test:e2e` and `test:realtime` run one tier each (test/jest/tiers.config.js).
 * @type {import('jest').Config}
 */
module.exports = {
  ...common(__dirname),
  ...servers,
  testMatch: ['**/test/**/*.test.ts'],
  testSequencer: '<rootDir>/test/jest/run-alone-first.js',
  ...run,
  // Half again as many files as cores: most slow files wait on clocks (ring and talk seconds, a
  // killed process's restart), so a third file beside two cores fills their idle time.
  // (Jest caps a percentage at 100%, so the count is computed here.)
  maxWorkers: Math.max(1, Math.floor(availableParallelism() * 1.5)),
  reporters: [
    'default',
    '<rootDir>/test/helpers/slowest-files-reporter.js',
    '<rootDir>/test/helpers/ci-summary-reporter.js',
  ],
};
