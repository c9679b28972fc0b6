/** Runs an import when a slot is free: `size` at once at most, the rest in order of arrival. */
export type ImportSlots = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * At most `size` imports hold a database connection at once; the rest wait their turn in order,
 * so a burst of large CSV files leaves the pool to every other route. One pool serves every kind
 * of import (contact lists and do-not-call lists): each kind having its own would double the
 * connections a burst can take.
 */
export function createImportSlots(size: number): ImportSlots {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await run();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
