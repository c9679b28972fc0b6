import { countTokens } from '../../agent-runtime/usage';
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

interface Unit {
  text: string;
  tokens: number;
  page: number | null;
}

const sentences = (text: string): string[] =>
  text.match(/[^.!?]+(?:[.!?]+["')\]]*|$)\s*/g)?.map((s) => s.trim()) ?? [text];

/** A text too long for one chunk, cut at sentences, and a sentence too long at words. */
function pieces(text: string, maxTokens: number): string[] {
  if (countTokens(text) <= maxTokens) return [text];
  const out: string[] = [];
  for (const sentence of sentences(text).filter((s) => s !== '')) {
    if (countTokens(sentence) <= maxTokens) {
      out.push(sentence);
      continue;
    }
    let words: string[] = [];
    for (const word of sentence.split(/\s+/)) {
      words.push(word);
      if (countTokens(words.join(' ')) > maxTokens && words.length > 1) {
        words.pop();
        out.push(words.join(' '));
        words = [word];
      }
    }
    if (words.length > 0) out.push(words.join(' '));
  }
  return out;
}

/** The end of a chunk, about `tokens` long, cut at a word. */
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
      const words = unit.text.split(/\s+/);
      // Tokens run about 1.3 to a word in English prose: a word budget close to the token budget.
      const text = words.slice(-Math.max(1, Math.floor(tokens / 1.3))).join(' ');
      kept.unshift({ text, tokens: countTokens(text), page: unit.page });
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
      const level = Math.min(Math.max(block.level ?? 1, 1), 6);
      headings.length = level - 1;
      for (let index = 0; index < level - 1; index += 1) headings[index] ??= '';
      headings[level - 1] = block.text;
      continue;
    }
    const budget = Math.max(16, options.maxTokens - countTokens(headingText()) - 1);
    for (const text of pieces(block.text, budget)) {
      const unit: Unit = { text, tokens: countTokens(text) + 1, page: block.page ?? null };
      const used = units.reduce((sum, each) => sum + each.tokens, 0);
      if (fresh && used + unit.tokens > budget) {
        emit();
        units = tail(units, Math.min(options.overlapTokens, budget - unit.tokens));
      }
      units.push(unit);
      fresh = true;
    }
  }
  emit();
  return chunks;
}
