/**
 * Deterministic handbook-like text for the knowledge-base benchmarks: sections with headings and
 * paragraphs of sentences drawn from a vocabulary of made-up and common words, so token counts,
 * chunk counts and full-text rankings behave like prose rather than one repeated line.
 */

const COMMON = (
  'the of and to in is for on with as at by from that this be are or an it not we you your our can will ' +
  'order delivery refund payment warranty service repair rental price customer store shop day days week ' +
  'month hours open close card bank transfer account phone email address street city country policy return'
).split(' ');

/** A small seeded generator (mulberry32): the same seed gives the same text on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'ri', 'ten', 'mar', 'vo', 'sel', 'dun', 'pra', 'gi', 'hol', 'bre', 'the', 'nis', 'qua'];

/** `size` made-up words of two to four syllables. */
export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let index = 0; index < syllables; index += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

export interface CorpusSection {
  heading: string;
  paragraphs: string[];
}

/** Sections of about `paragraphsPerSection` paragraphs of 3 to 7 sentences, until about `bytes` of text. */
export function corpusSections(bytes: number, seed = 1, paragraphsPerSection = 4): CorpusSection[] {
  const random = seededRandom(seed);
  const words = vocabulary(20_000, random);
  const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)] as string;
  const word = () => (random() < 0.45 ? pick(COMMON) : pick(words));
  const sentence = () => {
    const length = 8 + Math.floor(random() * 14);
    const parts = Array.from({ length }, word);
    if (random() < 0.3) parts.splice(Math.floor(random() * length), 0, String(Math.floor(random() * 1000)));
    const text = parts.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const sections: CorpusSection[] = [];
  let total = 0;
  while (total < bytes) {
    const heading = `${pick(words)} ${pick(words)} ${pick(COMMON)}`;
    const paragraphs = Array.from({ length: paragraphsPerSection }, () =>
      Array.from({ length: 3 + Math.floor(random() * 5) }, sentence).join(' '),
    );
    total += heading.length + paragraphs.reduce((sum, paragraph) => sum + paragraph.length + 2, 4);
    sections.push({ heading: `${heading.charAt(0).toUpperCase()}${heading.slice(1)}`, paragraphs });
  }
  return sections;
}

export const corpusMarkdown = (sections: readonly CorpusSection[]): string =>
  sections.map((section) => `## ${section.heading}\n\n${section.paragraphs.join('\n\n')}\n`).join('\n');
