import type { Tiktoken } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };

type Ranks = ConstructorParameters<typeof Tiktoken>[0];

/** Pieces (words, runs of spaces or punctuation) counted and remembered before the memory is cleared. */
const MAX_REMEMBERED_PIECES = 500_000;
/** The most unseen pieces encoded by one call of the tokenizer. */
const PIECES_PER_ENCODE = 4_096;

/**
 * Counts `o200k_base` tokens (OpenAI's GPT-4o family tokenizer) exactly as js-tiktoken's `encode`
 * does, without its cost per call: `encode` compiles the tokenizer's split pattern anew every time
 * (about a millisecond), which dominates counting many short texts. The pattern is compiled once
 * here; a text is split into its pieces, each piece is counted once and remembered, and the pieces
 * not seen yet are encoded together in one call, kept apart by the end-of-text special token,
 * which the tokenizer never merges with its neighbours.
 */
export class TokenCounter {
  private readonly pieces = new Map<string, number>();
  private readonly split: RegExp;
  private readonly separator: string;
  private readonly separatorToken: number;

  constructor(
    private readonly encoder: Tiktoken,
    ranks: Ranks,
  ) {
    this.split = new RegExp(ranks.pat_str, 'gu');
    const [separator, token] = Object.entries(ranks.special_tokens)[0] ?? [];
    if (separator === undefined || token === undefined) throw new Error('The tokenizer has no special token');
    this.separator = separator;
    this.separatorToken = token;
  }

  count(text: string): number {
    const pieces = text.match(this.split) ?? [];
    const unseen = new Set<string>();
    for (const piece of pieces) if (!this.pieces.has(piece)) unseen.add(piece);
    if (unseen.size > 0) this.learn([...unseen]);
    let total = 0;
    for (const piece of pieces) total += this.pieces.get(piece) as number;
    return total;
  }

  private learn(unseen: string[]): void {
    if (this.pieces.size + unseen.length > MAX_REMEMBERED_PIECES) this.pieces.clear();
    for (let start = 0; start < unseen.length; start += PIECES_PER_ENCODE) {
      const batch = unseen.slice(start, start + PIECES_PER_ENCODE);
      const tokens = this.encoder.encode(batch.join(this.separator), [this.separator]);
      let piece = 0;
      let count = 0;
      for (const token of tokens) {
        if (token === this.separatorToken) {
          this.pieces.set(batch[piece] as string, count);
          piece += 1;
          count = 0;
        } else count += 1;
      }
      this.pieces.set(batch[piece] as string, count);
    }
  }
}

/** js-tiktoken's `o200k_base` encoder and its ranks (about 0.5 s and 100 MB of heap). */
export function loadO200k(): { encoder: Tiktoken; ranks: Ranks } {
  // js-tiktoken's CommonJS builds, required only when something is first counted.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const lite = require('js-tiktoken/lite') as { Tiktoken: typeof Tiktoken };
  const ranks = require('js-tiktoken/ranks/o200k_base') as Ranks;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { encoder: new lite.Tiktoken(ranks), ranks };
}

let counter: TokenCounter | undefined;

/** The shared `o200k_base` counter, loaded on first use. */
export function o200kCounter(): TokenCounter {
  if (!counter) {
    const { encoder, ranks } = loadO200k();
    counter = new TokenCounter(encoder, ranks);
  }
  return counter;
}
