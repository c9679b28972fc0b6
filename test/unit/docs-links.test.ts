import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { documentationPages, REPO_ROOT, RUN_ELSEWHERE, RUN_GUIDES, shellBlocks } from '../helpers/doc-examples';

const root = REPO_ROOT;
const pages = documentationPages();

/** The text a reader sees as prose: fenced blocks and inline code hold examples, not links. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** Link targets of `[text](target)`, without a title. */
const linkTargets = (text: string): string[] =>
  [...prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');

/** The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces as hyphens). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of text.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = (match[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

describe('README.md and docs/', () => {
  it('has pages to check', () => {
    expect(pages.length).toBeGreaterThan(10);
  });

  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s: every relative link names a file of the repository, and an anchor it has',
    (_name, page) => {
      const problems: string[] = [];
      for (const target of linkTargets(readFileSync(page, 'utf8'))) {
        if (/^(https?|mailto):/.test(target)) continue;
        const [path = '', anchor] = target.split('#', 2);
        const file = path === '' ? page : resolve(dirname(page), decodeURI(path));
        if (file !== root && !file.startsWith(root + sep)) {
          problems.push(`${target}: leaves the repository`);
          continue;
        }
        if (file.split(sep).includes('node_modules') || !existsSync(file)) {
          problems.push(`${target}: no such file`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          problems.push(`${target}: no heading with this anchor`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s: names no issue number and no place outside the repository',
    (_name, page) => {
      const text = readFileSync(page, 'utf8');
      expect(text.match(/\b[Ii]ssues? #?\d+/g) ?? []).toEqual([]);
      expect(text.match(/\.\.\/shared|\/work\//g) ?? []).toEqual([]);
    },
  );

  it('runs every page of shell examples in the doc test, or names it as exercised elsewhere', () => {
    const withShell = pages
      .filter((page) => shellBlocks(readFileSync(page, 'utf8')).length > 0)
      .map((page) => relative(root, page))
      .sort();
    const covered = [...RUN_GUIDES.map((guide) => relative(root, guide)), ...Object.keys(RUN_ELSEWHERE)].sort();
    expect(withShell).toEqual(covered);
  });
});
