import parseRange from 'range-parser';
import type { ByteRange } from '../voice/recording-store';

/**
 * The one byte range a request asks for (range-parser, as Express reads it): null to send the whole
 * file (no `Range`, one without `=`, another unit, several ranges, or any `If-Range`, having no
 * validator to compare it with: RFC 9110 §14.2 lets a server ignore them), 'unsatisfiable' when no
 * range it names has valid bounds within the file.
 */
export function requestedRange(
  headers: { range: string; ifRange: string },
  size: number,
): ByteRange | 'unsatisfiable' | null {
  // Koa's `ctx.get` gives '' for a header not sent.
  if (!headers.range || headers.ifRange) return null;
  const ranges = parseRange(size, headers.range, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  const { start, end } = ranges[0] as parseRange.Range;
  return { start, end };
}
