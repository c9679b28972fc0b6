/** Contact lists for the campaign benchmarks. */

/** The simulator's outcome suffixes (busy, no-answer, voicemail, failed): left out, every contact answers. */
const MAGIC_SUFFIXES = new Set([486, 408, 600, 503]);
const AREA_CODES = ['212', '415', '646', '312', '617', '303', '206', '512', '305', '404'];

/** A contacts CSV of distinct valid US numbers, none with a magic suffix. */
export function contactsCsv(count: number): string {
  const rows = ['phone_number,first_name'];
  for (let local = 2_000_000; rows.length <= count; local += 1) {
    if (MAGIC_SUFFIXES.has(local % 10_000)) continue;
    for (const area of AREA_CODES) {
      if (rows.length > count) break;
      rows.push(`+1${area}${local},Contact ${rows.length}`);
    }
  }
  return rows.join('\n');
}

/** Area codes none of `contactsCsv`'s numbers has. */
const LISTED_AREA_CODES = ['718', '347', '929', '917', '332', '510', '408', '650', '669', '628'];

/** A do-not-call CSV of `count` distinct valid US numbers, none of them a number `contactsCsv` makes. */
export function doNotCallCsv(count: number): string {
  const rows = ['phone_number,reason'];
  for (let local = 2_000_000; rows.length <= count; local += 1) {
    for (const area of LISTED_AREA_CODES) {
      if (rows.length > count) break;
      rows.push(`+1${area}${local},bench`);
    }
  }
  return rows.join('\n');
}
