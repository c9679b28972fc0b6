/** A document's text as the chunker reads it: headings and paragraphs in reading order. */
export interface TextBlock {
  kind: 'heading' | 'paragraph';
  text: string;
  /** 1 (outermost) to 6, for headings. */
  level?: number;
  /** The page it is on (PDF). */
  page?: number;
}

export interface ExtractedText {
  blocks: TextBlock[];
  /** PDF pages; null for other kinds. */
  pageCount: number | null;
}

const TITLE_MAX_WORDS = 10;

/**
 * Whether a line of plain text (a PDF's, a TXT file's) reads as a heading: short, starting with a
 * capital or a digit, not ending like a sentence, and followed by longer text.
 */
function looksLikeHeading(line: string, next: string | undefined): boolean {
  const words = line.split(/\s+/).length;
  return (
    words <= TITLE_MAX_WORDS &&
    /^[\p{Lu}\p{N}]/u.test(line) &&
    !/[.,;:!?)]$/.test(line) &&
    next !== undefined &&
    next.length > line.length
  );
}

/**
 * Blocks of plain text: paragraphs are separated by blank lines, or each line is one when the text
 * has no blank lines (PDF text comes line by line); title-like lines become headings.
 */
export function plainTextBlocks(text: string, page?: number): TextBlock[] {
  const normalized = text.replace(/\r\n?/g, '\n');
  const hasParagraphs = /\n\s*\n/.test(normalized);
  const pieces = (hasParagraphs ? normalized.split(/\n\s*\n/) : normalized.split('\n'))
    .map((piece) => piece.replace(/\s+/g, ' ').trim())
    .filter((piece) => piece !== '');
  return pieces.map((piece, index): TextBlock => {
    const at = page === undefined ? {} : { page };
    return looksLikeHeading(piece, pieces[index + 1])
      ? { kind: 'heading', text: piece, level: 2, ...at }
      : { kind: 'paragraph', text: piece, ...at };
  });
}

/** Markdown: `#` lines are headings; paragraphs are separated by blank lines. */
export function markdownBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    const joined = paragraph.join(' ').replace(/\s+/g, ' ').trim();
    if (joined) blocks.push({ kind: 'paragraph', text: joined });
    paragraph = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] && heading[2]) {
      flush();
      blocks.push({ kind: 'heading', text: heading[2], level: heading[1].length });
    } else if (line.trim() === '') flush();
    else paragraph.push(line.trim());
  }
  flush();
  return blocks;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });

/** The simple HTML mammoth makes of a DOCX: `h1`-`h6` are headings; paragraphs, list items and cells are paragraphs. */
export function htmlBlocks(html: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  const pattern = /<(h[1-6]|p|li|td|th)\b[^>]*>([\s\S]*?)<\/\1>/gi;
  for (const match of html.matchAll(pattern)) {
    const tag = (match[1] ?? '').toLowerCase();
    const text = decodeEntities((match[2] ?? '').replace(/<[^>]+>/g, ' '))
      .replace(/\s+/g, ' ')
      .trim();
    if (!text) continue;
    if (tag.startsWith('h')) blocks.push({ kind: 'heading', text, level: Number(tag.slice(1)) });
    else blocks.push({ kind: 'paragraph', text });
  }
  return blocks;
}

/** JSON: each top-level key is a heading over its values, written as `path: value` lines. */
export function jsonBlocks(value: unknown): TextBlock[] {
  const blocks: TextBlock[] = [];
  const leaves = (node: unknown, path: string): void => {
    if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
        leaves(child, Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
      }
      return;
    }
    if (node === null || node === undefined || node === '') return;
    const text = typeof node === 'string' ? node : JSON.stringify(node);
    blocks.push({ kind: 'paragraph', text: path ? `${path}: ${text}` : text });
  };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      blocks.push({ kind: 'heading', text: key, level: 1 });
      leaves(child, key);
    }
  } else leaves(value, '');
  return blocks;
}
