import parseWithMinMetadata from 'libphonenumber-js';
import mobileExamples from 'libphonenumber-js/examples.mobile.json';
import maxMetadataJson from 'libphonenumber-js/max/metadata';
import { e164, libraryE164 } from '../../domain/campaigns/sources/phone-number';

const metadata = maxMetadataJson as unknown as {
  country_calling_codes: Record<string, string[]>;
  nonGeographic: Record<string, unknown>;
};

/** The check before the compiled fast path: libphonenumber-js with its default ('min') metadata. */
function minMetadataE164(cell: string): string | null {
  const parsed = parseWithMinMetadata(cell.trim(), { extract: false });
  return parsed && !parsed.ext && parsed.isValid() ? parsed.number : null;
}

/** A fixed-seed generator, so a failure names inputs that reproduce. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * below);
  };
}

/** Random numbers under every calling code, mutations of real mobile numbers, formatted in many ways. */
function sampleCells(): string[] {
  const pick = random(7);
  const separators = [' ', '-', '.', ' (', ') ', '／', '\u00a0'];
  const formatted = (digits: string) =>
    [...digits].map((digit) => (pick(6) === 0 ? digit + separators[pick(separators.length)] : digit)).join('');
  const digits = (count: number) => Array.from({ length: count }, () => pick(10)).join('');
  const cells: string[] = [];
  const callingCodes = [...Object.keys(metadata.country_calling_codes), ...Object.keys(metadata.nonGeographic)];
  for (const code of callingCodes) {
    for (let i = 0; i < 150; i += 1) {
      const number = code + digits(1 + pick(17));
      cells.push(`+${number}`, `+${formatted(number)}`);
    }
  }
  for (const [country, nationalNumber] of Object.entries(mobileExamples as Record<string, string>)) {
    const code = Object.keys(metadata.country_calling_codes).find((calling) =>
      metadata.country_calling_codes[calling]?.includes(country),
    );
    if (!code) continue;
    const number = code + nationalNumber;
    cells.push(`+${number}`, ` +${formatted(number)} `, `+${code} (0) ${nationalNumber}`, `+${code}0${nationalNumber}`);
    for (let i = 0; i < 20; i += 1) {
      const at = pick(number.length);
      cells.push(`+${number.slice(0, at)}${pick(10)}${number.slice(at + 1)}`, `+${number}${pick(10)}`);
    }
    cells.push(`+${number.slice(0, -1)}`, `${number}`, `+${number} ext. 12`);
  }
  return cells;
}

describe('e164', () => {
  it.each([
    ['+14155550101', '+14155550101'],
    ['  +1 (415) 555-0102 ', '+14155550102'],
    ['+1.415.555.0103', '+14155550103'],
    ['+44 (0)20 7183 8750', '+442071838750'],
    ['+33 6 12 34 56 78', '+33612345678'],
    ['+54 9 11 1234-5678', '+5491112345678'],
    ['+800 1234 5678', '+80012345678'],
    ['+1／415／555／0101', '+14155550101'],
  ])('accepts %j as %s', (cell, number) => {
    expect(e164(cell)).toBe(number);
  });

  it.each([
    ['no +', '14155550101'],
    ['national', '(415) 555-0101'],
    ['too short', '+1415555'],
    ['an extension', '+14155550101 ext. 12'],
    ['letters', '+1-800-FLOWERS'],
    ['an unknown calling code', '+999123456'],
    ['a leading 0', '+0014155550113'],
    ['two +', '++14155550115'],
    ['no number type of its country', '+16495551234'],
    ['empty', ''],
    ['only +', '+'],
  ])('refuses %s', (_case, cell) => {
    expect(e164(cell)).toBeNull();
  });

  it("refuses numbers that only match their country's general pattern, which the 'min' metadata accepted", () => {
    for (const cell of ['+49500940824', '+5543254324', '+812585939937']) {
      expect(minMetadataE164(cell)).toBe(cell);
      expect(e164(cell)).toBeNull();
    }
  });

  it("gives libphonenumber-js's own answer for every sampled cell", () => {
    const cells = sampleCells();
    const differing = cells.filter((cell) => e164(cell) !== libraryE164(cell.trim()));
    expect(differing).toEqual([]);
    // The sample reaches valid numbers of many countries, not only refusals.
    expect(cells.filter((cell) => e164(cell) !== null).length).toBeGreaterThan(3000);
  });

  it("accepts no number the 'min' metadata refused, and formats the ones it accepts the same", () => {
    const laxer = sampleCells().filter((cell) => {
      const number = e164(cell);
      return number !== null && number !== minMetadataE164(cell);
    });
    expect(laxer).toEqual([]);
  });
});
