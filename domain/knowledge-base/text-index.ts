/**
 * A completed document's chunks as an inverted index over their `search_vector`s, ranking them for
 * a query exactly as PostgreSQL's `ts_rank(search_vector, lexeme | lexeme | ..., 1)` would, in the
 * same single-precision arithmetic, without reading every matching chunk's tsvector again on each
 * search (a question's common words match most chunks of a large document).
 */

/** ts_rank's default weights of D, C, B and A positions, as single-precision floats. */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
/** The limit of sum(1/i^2): ts_rank divides each lexeme's score by it. */
const PI_SQUARED_OVER_SIX = 1.64493406685;

export interface DocumentTextIndex {
  /** Each chunk's position in the document, by chunk index. */
  positions: Int32Array;
  /** Each chunk's log2(1 + number of words), ts_rank's length normalization. */
  lengthNorms: Float64Array;
  /** Lexeme → index into `starts`; its postings are `starts[i]` up to `starts[i + 1]`. */
  lexemes: Map<string, number>;
  starts: Int32Array;
  /** Per posting: the chunk index, and the lexeme's score in that chunk before normalization. */
  chunks: Int32Array;
  scores: Float32Array;
}

/** A chunk ranked for a query. */
export interface TextHit {
  position: number;
  score: number;
}

interface ParsedLexeme {
  lexeme: string;
  /** The weight index (0 = D ... 3 = A) of each position, in order; one D entry when it has none. */
  weights: number[];
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** Parses PostgreSQL's text form of a tsvector: `'lexeme':1A,2 'other':3`. */
export function parseTsvector(text: string): ParsedLexeme[] {
  const lexemes: ParsedLexeme[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] !== "'") {
      at += 1;
      continue;
    }
    let lexeme = '';
    at += 1;
    for (;;) {
      const char = text[at];
      if (char === undefined) return lexemes;
      if (char === "'" && text[at + 1] === "'") {
        lexeme += "'";
        at += 2;
      } else if (char === '\\') {
        lexeme += text[at + 1] ?? '';
        at += 2;
      } else if (char === "'") {
        at += 1;
        break;
      } else {
        lexeme += char;
        at += 1;
      }
    }
    const weights: number[] = [];
    if (text[at] === ':') {
      at += 1;
      while (at < text.length && text[at] !== ' ') {
        while (isDigit(text.charCodeAt(at))) at += 1;
        const mark = text[at];
        if (mark === 'A' || mark === 'B' || mark === 'C' || mark === 'D') {
          weights.push(3 - (mark.charCodeAt(0) - 65));
          at += 1;
        } else weights.push(0);
        if (text[at] === ',') at += 1;
      }
    } else weights.push(0);
    lexemes.push({ lexeme, weights });
  }
  return lexemes;
}

/** ts_rank's score of one lexeme in one chunk (calc_rank_or's term), before it is summed. */
function lexemeScore(weights: readonly number[]): number {
  let sum = Math.fround(0);
  let heaviest = Math.fround(-1);
  let heaviestAt = 0;
  weights.forEach((weightIndex, index) => {
    const weight = WEIGHTS[weightIndex] as number;
    sum = Math.fround(sum + Math.fround(weight / ((index + 1) * (index + 1))));
    if (weight > heaviest) {
      heaviest = weight;
      heaviestAt = index;
    }
  });
  return Math.fround(Math.fround(heaviest + sum) - Math.fround(heaviest / ((heaviestAt + 1) * (heaviestAt + 1))));
}

/** Builds a document's index from its chunks' positions and `search_vector::text`. */
export function buildTextIndex(rows: readonly { position: number; vector: string }[]): DocumentTextIndex {
  const positions = new Int32Array(rows.length);
  const lengthNorms = new Float64Array(rows.length);
  const postings = new Map<string, { chunks: number[]; scores: number[] }>();
  rows.forEach((row, chunk) => {
    positions[chunk] = row.position;
    let words = 0;
    for (const { lexeme, weights } of parseTsvector(row.vector)) {
      words += weights.length;
      let list = postings.get(lexeme);
      if (!list) {
        list = { chunks: [], scores: [] };
        postings.set(lexeme, list);
      }
      list.chunks.push(chunk);
      list.scores.push(lexemeScore(weights));
    }
    lengthNorms[chunk] = Math.log(words + 1) / Math.log(2);
  });
  let total = 0;
  for (const list of postings.values()) total += list.chunks.length;
  const lexemes = new Map<string, number>();
  const starts = new Int32Array(postings.size + 1);
  const chunks = new Int32Array(total);
  const scores = new Float32Array(total);
  let next = 0;
  for (const [lexeme, list] of postings) {
    lexemes.set(lexeme, lexemes.size);
    starts[lexemes.size - 1] = next;
    chunks.set(list.chunks, next);
    scores.set(list.scores, next);
    next += list.chunks.length;
  }
  starts[lexemes.size] = next;
  return { positions, lengthNorms, lexemes, starts, chunks, scores };
}

/** Memory an index takes, in bytes, roughly. */
export const textIndexBytes = (index: DocumentTextIndex): number =>
  index.positions.byteLength +
  index.lengthNorms.byteLength +
  index.starts.byteLength +
  index.chunks.byteLength +
  index.scores.byteLength +
  index.lexemes.size * 64;

/** Orders lexemes as ts_rank sums them: by their UTF-8 bytes. */
export function rankingOrder(lexemes: readonly string[]): string[] {
  const unique = [...new Set(lexemes)];
  return unique
    .map((lexeme) => ({ lexeme, bytes: Buffer.from(lexeme, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map((entry) => entry.lexeme);
}

/**
 * The `limit` best chunks holding any of `lexemes` (in `rankingOrder`), best first (ties by
 * position), each with ts_rank's score for the OR of them normalized by the chunk's length
 * (ts_rank's normalization 1), rounded as PostgreSQL rounds it.
 */
export function rankChunks(index: DocumentTextIndex, lexemes: readonly string[], limit: number): TextHit[] {
  const sums = new Float32Array(index.positions.length);
  const matched = new Uint8Array(index.positions.length);
  for (const lexeme of lexemes) {
    const entry = index.lexemes.get(lexeme);
    if (entry === undefined) continue;
    const end = index.starts[entry + 1] as number;
    for (let posting = index.starts[entry] as number; posting < end; posting += 1) {
      const chunk = index.chunks[posting] as number;
      // C adds a double to a float and stores the float: Float32Array does the same rounding.
      sums[chunk] = (sums[chunk] as number) + (index.scores[posting] as number) / PI_SQUARED_OVER_SIX;
      matched[chunk] = 1;
    }
  }
  const best: TextHit[] = [];
  const before = (score: number, position: number, hit: TextHit) =>
    score > hit.score || (score === hit.score && position < hit.position);
  for (let chunk = 0; chunk < matched.length; chunk += 1) {
    if (!matched[chunk]) continue;
    let sum = Math.fround((sums[chunk] as number) / lexemes.length);
    if (sum < 0) sum = Math.fround(1e-20);
    const score = Math.fround(sum / (index.lengthNorms[chunk] as number));
    const position = index.positions[chunk] as number;
    if (best.length === limit && !before(score, position, best[limit - 1] as TextHit)) continue;
    let at = best.length;
    while (at > 0 && before(score, position, best[at - 1] as TextHit)) at -= 1;
    best.splice(at, 0, { position, score });
    if (best.length > limit) best.pop();
  }
  return best;
}
