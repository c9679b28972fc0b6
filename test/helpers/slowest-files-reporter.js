// @ts-check
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

/** How many files the summary lists. */
const LISTED = 15;

/**
 * How long a file waited for others before it ran (written by test/helpers/running-files.ts).
 * @param {string} file
 */
const waitedMs = (file) => {
  const folder = process.env.SWITCHBOARD_TEST_RUNNING_FILES;
  if (!folder) return 0;
  try {
    return Number(readFileSync(join(folder, `${encodeURIComponent(file)}.wait-ms`), 'utf8')) || 0;
  } catch {
    return 0;
  }
};

/**
 * Prints, at the end of a run, the test files that took longest (wall clock per file, with its
 * project when the run has several), so CI's log shows where the run's time goes. A file's time
 * leaves out its wait for other files (see test/helpers/running-files.ts, which writes the wait
 * where this reads it).
 * @implements {import('@jest/reporters').Reporter}
 */
class SlowestFilesReporter {
  /** @param {import('@jest/types').Config.GlobalConfig} globalConfig */
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    /** @type {{ file: string, project: string, ms: number, tests: number }[]} */
    this.files = [];
  }

  /**
   * @param {import('@jest/reporters').Test} test
   * @param {import('@jest/test-result').TestResult} result
   */
  onTestResult(test, result) {
    const { start, end } = result.perfStats;
    const project = test.context.config.displayName?.name ?? '';
    const file = relative(this.rootDir, result.testFilePath);
    this.files.push({
      file,
      project,
      ms: start && end ? end - start - waitedMs(file) : 0,
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests + result.numTodoTests,
    });
  }

  onRunComplete() {
    if (this.files.length < 2) return;
    const slowest = [...this.files].sort((a, b) => b.ms - a.ms).slice(0, LISTED);
    const width = Math.max(...slowest.map(({ file }) => file.length));
    const lines = slowest.map(
      ({ file, project, ms, tests }) =>
        `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file.padEnd(width)}  ${project ? `${project.padEnd(11)} ` : ''}${tests} tests`,
    );
    const total = this.files.reduce((sum, { ms }) => sum + ms, 0);
    process.stdout.write(
      `\nSlowest ${slowest.length} of ${this.files.length} test files ` +
        `(${(total / 1000).toFixed(0)} s of file time in all):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = SlowestFilesReporter;
