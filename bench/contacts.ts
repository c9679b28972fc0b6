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
