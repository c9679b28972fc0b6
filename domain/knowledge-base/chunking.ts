import { o200kCounter } from '../../agent-runtime/token-counter';
import type { TextBlock } from './text-blocks';

/** A passage as stored and searched. */
export interface TextChunk {
  position: number;
  /** The headings above it, outermost first, joined by ' > '. */
  heading: string;
  content: string;
  /** The page its first text is on (PDF). */
  page: number | null;
  tokenCount: number;
}

export interface ChunkingOptions {
  /** Most tokens of a chunk's text, its heading included. */
  maxTokens: number;
  /** Tokens of the previous chunk's end repeated at the start of the next one in the same section. */
  overlapTokens: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxTokens: 350, overlapTokens: 60 };

const countTokens = (text: string): number => o200kCounter().count(text);

interface Unit {
  text: string;
  tokens: number;
  page: number | null;
}

const sentences = (text: string): string[] =>
  text.match(/[^.!?]+(?:[.!?]+["')\]]*|$)\s*/g)?.map((s) => s.trim()) ?? [text];

/**
 * Words of a text, each with its tokens when the words are joined by single spaces: a word's
 * pieces never merge with its neighbours' across a space, so the counts add up.
 */
const countedWords = (text: string): { word: string; tokens: number }[] =>
  text
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word, index) => ({ word, tokens: countTokens(index === 0 ? word : ` ${word}`) }));

/** Words of `text`, in order, cut into runs of at most `maxTokens` (a single longer word alone). */
function wordRuns(text: string, maxTokens: number): string[] {
  const runs: string[] = [];
  let run: string[] = [];
  let used = 0;
  for (const { word, tokens } of countedWords(text)) {
    if (run.length > 0 && used + tokens > maxTokens) {
      runs.push(run.join(' '));
      run = [];
      used = 0;
    }
    run.push(word);
    used += tokens;
  }
  if (run.length > 0) runs.push(run.join(' '));
  return runs;
}

/** A text too long for one chunk, cut at sentences, and a sentence too long at words. */
function pieces(text: string, maxTokens: number): string[] {
  if (countTokens(text) <= maxTokens) return [text];
  return sentences(text)
    .filter((sentence) => sentence !== '')
    .flatMap((sentence) => (countTokens(sentence) <= maxTokens ? [sentence] : wordRuns(sentence, maxTokens)));
}

/** The end of a chunk, at most about `tokens` long, cut at a word. */
function tail(units: Unit[], tokens: number): Unit[] {
  const kept: Unit[] = [];
  let total = 0;
  for (let index = units.length - 1; index >= 0; index -= 1) {
    const unit = units[index] as Unit;
    if (total + unit.tokens <= tokens) {
      kept.unshift(unit);
      total += unit.tokens;
      continue;
    }
    if (kept.length === 0) {
      const words = countedWords(unit.text);
      let start = words.length;
      let used = 0;
      while (start > 0 && used + (words[start - 1]?.tokens ?? 0) < tokens) {
        start -= 1;
        used += words[start]?.tokens ?? 0;
      }
      if (start < words.length) {
        const text = words
          .slice(start)
          .map((each) => each.word)
          .join(' ');
        kept.unshift({ text, tokens: countTokens(text) + 1, page: unit.page });
      }
    }
    break;
  }
  return kept;
}

/**
 * Cuts a document's blocks into chunks of at most `maxTokens` (o200k_base tokens, heading
 * included): a heading is never left alone, every chunk carries the headings above it, a section's
 * chunks overlap by about `overlapTokens`, and a new section starts a new chunk.
 */
export function chunkBlocks(blocks: TextBlock[], options: ChunkingOptions = DEFAULT_CHUNKING): TextChunk[] {
  const chunks: TextChunk[] = [];
  const headings: string[] = [];
  let units: Unit[] = [];
  let used = 0;
  let fresh = false;
  const headingText = () => headings.filter((heading) => heading !== '').join(' > ');
  const emit = () => {
    if (!fresh) return;
    const heading = headingText();
    const content = units.map((unit) => unit.text).join('\n');
    chunks.push({
      position: chunks.length,
      heading,
      content,
      page: units[0]?.page ?? null,
      tokenCount: countTokens(heading ? `${heading}\n${content}` : content),
    });
    fresh = false;
  };
  for (const block of blocks) {
    if (block.kind === 'heading') {
      emit();
      units = [];
      used = 0;
      const level = Math.min(Math.max(block.level ?? 1, 1), 6);
      headings.length = level - 1;
      for (let index = 0; index < level - 1; index += 1) headings[index] ??= '';
      headings[level - 1] = block.text;
      continue;
    }
    const budget = Math.max(16, options.maxTokens - countTokens(headingText()) - 1);
    for (const text of pieces(block.text, budget)) {
      const unit: Unit = { text, tokens: countTokens(text) + 1, page: block.page ?? null };
      if (fresh && used + unit.tokens > budget) {
        emit();
        units = tail(units, Math.min(options.overlapTokens, budget - unit.tokens));
        used = units.reduce((sum, each) => sum + each.tokens, 0);
      }
      units.push(unit);
      used += unit.tokens;
      fresh = true;
    }
  }
  emit();
  return chunks;
}
