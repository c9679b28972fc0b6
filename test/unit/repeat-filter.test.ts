import { RepeatFilter } from '../../domain/campaigns/sources/repeat-filter';

const AREA_CODES = ['212', '415', '646', '312', '617', '303', '206', '512', '305', '404'];
/** Distinct numbers shaped like the benchmark's: ten area codes, consecutive subscriber numbers. */
const usNumber = (index: number) => `+1${AREA_CODES[index % 10]}${2_000_000 + Math.floor(index / 10)}`;
const ukMobile = (index: number) => `+447${String(100_000_000 + index * 7)}`;

describe('RepeatFilter', () => {
  it('raises no alarm over a million distinct numbers', () => {
    for (const number of [usNumber, ukMobile]) {
      const filter = new RepeatFilter();
      for (let index = 0; index < 1_000_000; index += 1) filter.add(number(index));
      expect(filter.mayHaveRepeats).toBe(false);
    }
  });

  it('never misses a repeat, wherever it is', () => {
    for (const [rows, repeated] of [
      [1, 0],
      [2, 1],
      [50_000, 0],
      [50_000, 31_337],
      [50_000, 49_999],
    ]) {
      const filter = new RepeatFilter();
      for (let index = 0; index < rows!; index += 1) filter.add(usNumber(index));
      expect(filter.mayHaveRepeats).toBe(false);
      filter.add(usNumber(repeated!));
      expect(filter.mayHaveRepeats).toBe(true);
    }
  });
});
