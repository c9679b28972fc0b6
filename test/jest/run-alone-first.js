// @ts-check
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's own order (failed and slow files first), with the files that must run alone
 * (`testEnvironmentOptions.runAlone`) moved to the front: they run on the freshly started servers,
 * and test/helpers/node-environment.ts holds every other file until they are done.
 */
class RunAloneFirst extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  async sort(tests) {
    const sorted = await super.sort(tests);
    const alone = (/** @type {import('@jest/test-result').Test} */ test) => {
      const { rootDir, testEnvironmentOptions } = test.context.config;
      const runAlone = /** @type {string[] | undefined} */ (testEnvironmentOptions.runAlone) ?? [];
      return runAlone.includes(relative(rootDir, test.path));
    };
    return [...sorted.filter(alone), ...sorted.filter((test) => !alone(test))];
  }
}

module.exports = RunAloneFirst;
