import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root folder. */
export const REPO_ROOT = join(__dirname, '..', '..');
export const README = join(REPO_ROOT, 'README.md');
const TOUR_HEADING = '## A five-minute tour';

/** The guides whose examples build on each other, in the order a reader follows them; the doc test runs them. */
export const RUN_GUIDES = ['accounts', 'calls', 'inbound', 'campaigns'].map((name) =>
  join(REPO_ROOT, 'docs', 'guides', `${name}.md`),
);

/**
 * Pages with `sh` blocks the doc test does not run, and why: each is exercised elsewhere or needs
 * what a test machine lacks. A page with shell examples must be run or named here.
 */
export const RUN_ELSEWHERE: Record<string, string> = {
  'README.md': 'the doc test runs the tour; the quick start is what test/e2e/npm-start.test.ts runs',
  'docs/guides/post-call-analysis.md': 'test/e2e/post-call-analysis.test.ts sends its rerun request',
  'docs/guides/running-locally.md': 'the quick start again (test/e2e/npm-start.test.ts)',
  'docs/operations/production.md': 'docker compose, which needs a container engine',
  'docs/guides/testing-agents.md':
    'test/e2e/text-chat.test.ts sends the text chat requests it shows; a web call needs a browser, and test/e2e/web-call.test.ts makes the same request and opens the page',
  'docs/operations/going-live.md':
    'docker compose, a public name and a tunnel, which a test machine lacks; test/scripts/doctor.test.ts runs the doctor',
  'docs/reference/temporal-names.md': 'test/e2e/operator-cli.test.ts runs its command-line examples on a campaign',
  'docs/workflow-versioning.md':
    'worker deployment commands of a deploy; test/workflows/worker-versioning.test.ts promotes builds as they do',
};

/** README.md and every Markdown page under docs/. */
export function documentationPages(): string[] {
  const markdownFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return markdownFiles(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [README, ...markdownFiles(join(REPO_ROOT, 'docs'))];
}

/** Every `sh` code block of a Markdown text, in order. */
export const shellBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');

/** The `sh` code blocks of the README's tour, in order, exactly as a reader copies them. */
export function tourBlocks(): string[] {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(`\n${TOUR_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${TOUR_HEADING}" section`);
  const end = readme.indexOf('\n## ', start + TOUR_HEADING.length + 1);
  return shellBlocks(readme.slice(start, end < 0 ? undefined : end));
}
