/**
 * 2^27 bits (16 MiB) whatever the file size, 6 probes a number: a false alarm in about 0.1% of
 * million-number files, 2% at a million and a half, 15% at two million.
 */
const BITS = 1 << 27;
const PROBES = 6;
// Read once: looking up the global `Math` on every call is slow in a vm context (jest's).
const { imul } = Math;

/**
 * A Bloom filter over the phone numbers of an upload: it can say for sure that no number was seen
 * twice, so the exact duplicate query (a sort of every new row in PostgreSQL) runs only when a
 * repeat is possible. It never misses a repeat; it may raise a false alarm, which only costs
 * that query. Memory stays the same for any number of rows.
 */
export class RepeatFilter {
  /** True once a number may have been seen before. */
  mayHaveRepeats = false;
  private bits: Int32Array | undefined;

  add(phone: string): void {
    this.bits ??= new Int32Array(BITS / 32);
    const bits = this.bits;
    // Two independent 32-bit hashes (a repeat needs both to collide), combined for each probe.
    let first = 0x811c9dc5;
    let second = 0x9747b28c;
    for (let index = 0; index < phone.length; index += 1) {
      const code = phone.charCodeAt(index);
      first = imul(first ^ code, 0x01000193);
      second = imul(second + code, 0x5bd1e995);
      second ^= second >>> 15;
    }
    first = mix(first);
    // Odd: with a power-of-two size, the probes of one number then never share a position.
    const step = mix(second) | 1;
    let seen = true;
    for (let probe = 0; probe < PROBES; probe += 1) {
      const position = (first + imul(probe, step)) & (BITS - 1);
      const word = position >>> 5;
      const mask = 1 << (position & 31);
      const current = bits[word] ?? 0;
      if ((current & mask) === 0) {
        seen = false;
        bits[word] = current | mask;
      }
    }
    if (seen) this.mayHaveRepeats = true;
  }
}

/** MurmurHash3's finalizer: every input bit reaches every output bit. */
function mix(hash: number): number {
  let value = hash ^ (hash >>> 16);
  value = imul(value, 0x85ebca6b);
  value ^= value >>> 13;
  value = imul(value, 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}
