import { requestedRange } from '../../api/byte-range';

const range = (header: string, size = 1000, ifRange = '') => requestedRange({ range: header, ifRange }, size);

describe('requestedRange', () => {
  it('reads one range, open-ended or a suffix, clamped to the file', () => {
    expect(range('bytes=0-99')).toEqual({ start: 0, end: 99 });
    expect(range('bytes=900-')).toEqual({ start: 900, end: 999 });
    expect(range('bytes=-100')).toEqual({ start: 900, end: 999 });
    expect(range('bytes=990-2000')).toEqual({ start: 990, end: 999 });
    // Overlapping ranges are one range.
    expect(range('bytes=0-9,5-19')).toEqual({ start: 0, end: 19 });
  });

  it('serves the whole file without a Range, for one without `=`, several ranges, another unit or any If-Range', () => {
    expect(range('')).toBeNull();
    expect(range('bytes')).toBeNull();
    expect(range('bytes=0-9,100-109')).toBeNull();
    expect(range('items=0-9')).toBeNull();
    expect(range('bytes=0-9', 1000, '"etag"')).toBeNull();
  });

  it('is unsatisfiable when it starts past the end or has no valid bounds (as Express answers)', () => {
    expect(range('bytes=1000-')).toBe('unsatisfiable');
    expect(range('bytes=5000-6000')).toBe('unsatisfiable');
    expect(range('bytes=abc')).toBe('unsatisfiable');
    expect(range('bytes=9-0')).toBe('unsatisfiable');
  });
});
