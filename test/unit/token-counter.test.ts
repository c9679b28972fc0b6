import { corpusMarkdown, corpusSections } from '../../bench/knowledge-base-corpus';
import { chunkBlocks } from '../../domain/knowledge-base/chunking';
import { markdownBlocks } from '../../domain/knowledge-base/text-blocks';
import { loadO200k, TokenCounter } from '../../agent-runtime/token-counter';

describe('token counter', () => {
  const { encoder, ranks } = loadO200k();
  const counter = new TokenCounter(encoder, ranks);
  // Special tokens' texts neither allowed nor refused: written in a document, they are plain text.
  const plainTokens = (text: string) => encoder.encode(text, [], []).length;

  it('counts exactly what js-tiktoken encodes, text by text', () => {
    const texts = [
      '',
      'Hello, world!',
      "It's the customer's order; they'll pick it up.",
      '   leading and trailing spaces   ',
      'lines\n\n\nand\ttabs\r\n  indented',
      'Ünïcödé façade — naïve café, 東京都, Здравствуйте, مرحبا 👋🏽',
      'Numbers 1234567 and 3.14159, +1 (415) 555-0100',
      'A document may quote <|endoftext|> or <|endofprompt|> as plain text.',
      corpusMarkdown(corpusSections(20_000, 7)),
    ];
    for (const text of texts) {
      expect(counter.count(text)).toBe(plainTokens(text));
    }
  });

  it('chunks a large Markdown file into chunks no longer than the budget', () => {
    const chunks = chunkBlocks(markdownBlocks(corpusMarkdown(corpusSections(150_000, 3))));
    expect(chunks.length).toBeGreaterThan(50);
    for (const chunk of chunks) {
      const text = chunk.heading ? `${chunk.heading}\n${chunk.content}` : chunk.content;
      expect(chunk.tokenCount).toBe(plainTokens(text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(350);
    }
  });
});
