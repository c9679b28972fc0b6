// @ts-check
const { writeFileSync } = require('node:fs');

/**
 * Writes one plain line, `N passed, N failed` (with `, N skipped` when tests were skipped), to the
 * file named by SWITCHBOARD_TEST_SUMMARY, for `.ci/run` to print last: tools that read CI logs read
 * that line, not jest's own summary. A file that could not run (a syntax error, a failing hook before
 * any test) counts as one failure, so a broken file can never read as a clean run.
 * @implements {import('@jest/reporters').Reporter}
 */
class CiSummaryReporter {
  /** @param {import('@jest/test-result').AggregatedResult} results */
  onRunComplete(_contexts, results) {
    const path = process.env.SWITCHBOARD_TEST_SUMMARY;
    if (!path) return;
    const brokenFiles = results.testResults.filter(
      (file) => file.testExecError !== undefined && file.numFailingTests === 0,
    ).length;
    const failed = results.numFailedTests + brokenFiles;
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
    writeFileSync(path, `${line}\n`);
  }
}

module.exports = CiSummaryReporter;
