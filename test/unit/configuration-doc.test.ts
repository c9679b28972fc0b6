import { readFileSync } from 'node:fs';
import { CONFIG_DOC, CONFIG_SOURCE, keyComments, renderConfigurationDoc } from '../../scripts/config-docs';
import { configSchema } from '../../platform/config';

describe('docs/reference/configuration.md', () => {
  it('is what `npm run docs:config` generates from the config schema', () => {
    // Fails with what to do: the diff alone would not say that the file is generated.
    if (readFileSync(CONFIG_DOC, 'utf8') !== renderConfigurationDoc()) {
      throw new Error('docs/reference/configuration.md is out of date: run `npm run docs:config` and commit it');
    }
  });

  it('describes every variable of the schema', () => {
    const comments = keyComments(readFileSync(CONFIG_SOURCE, 'utf8'));
    const undocumented = Object.keys(configSchema.shape).filter((name) => !comments.get(name));
    expect(undocumented).toEqual([]);
  });
});

describe('keyComments', () => {
  it('reads the doc comment right above each key, single- or multi-line, and ignores line comments', () => {
    const source = `
      const configSchema = z.object({
        /** One line. */
        A: z.string(),
        // not a doc comment
        B: z.string(),
        /**
         * Two
         * lines.
         */
        C: z.number(),
      });`;
    expect([...keyComments(source)]).toEqual([
      ['A', 'One line.'],
      ['C', 'Two lines.'],
    ]);
  });
});
