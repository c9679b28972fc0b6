// @ts-check
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's own order (failed and slow files first), with the files that must run alone
 * (`testEnvironmentOptions.runAlone`) moved to the front in the order of that list: they run on the
 * freshly started servers, and test/helpers/node-environment.ts holds every other file until they
 * are done. When they run two at a time (`runAloneAtOnce`), the list's order decides which run
 * together, whatever jest knows of earlier runs.
 */
class RunAloneFirst extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  async sort(tests) {
    const sorted = await super.sort(tests);
    const place = (/** @type {import('@jest/test-result').Test} */ test) => {
      const { rootDir, testEnvironmentOptions } = test.context.config;
      const runAlone = /** @type {string[] | undefined} */ (testEnvironmentOptions.runAlone) ?? [];
      return runAlone.indexOf(relative(rootDir, test.path));
    };
    const alone = sorted.filter((test) => place(test) >= 0).sort((a, b) => place(a) - place(b));
    return [...alone, ...sorted.filter((test) => place(test) < 0)];
  }
}

module.exports = RunAloneFirst;
