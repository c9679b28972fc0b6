/** Small statistics for the benchmarks' reports: percentiles, a least-squares line, Prometheus text. */

/** The `p`-th percentile (0–100) of `values` by the nearest-rank method; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? NaN;
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const mean = values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length === 0 ? NaN : Math.max(...values),
    mean,
  };
}

/**
 * Ordinary least squares of `ys` on `xs`: `y ≈ intercept + slope × x`. With one distinct x (or
 * fewer than two points) the slope is unknown: NaN, and the intercept is the mean of `ys`.
 */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  const n = Math.min(xs.length, ys.length);
  if (n === 0) return { slope: NaN, intercept: NaN };
  const meanX = xs.slice(0, n).reduce((sum, x) => sum + x, 0) / n;
  const meanY = ys.slice(0, n).reduce((sum, y) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = (xs[i] ?? 0) - meanX;
    covariance += dx * ((ys[i] ?? 0) - meanY);
    variance += dx * dx;
  }
  if (variance === 0) return { slope: NaN, intercept: meanY };
  const slope = covariance / variance;
  return { slope, intercept: meanY - slope * meanX };
}

/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (comments skipped; label values without escaped quotes). */
export function parsePrometheus(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** Sum of every sample named `name` whose labels include `where`. */
export function metricSum(samples: readonly MetricSample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([k, v]) => sample.labels[k] === v))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * Cumulative histogram buckets (`<name>_bucket`, summed over other labels) as `[le, count]` pairs,
 * `le` ascending; `before` (an earlier scrape) is subtracted, so the buckets cover the interval.
 */
export function histogramBuckets(
  samples: readonly MetricSample[],
  name: string,
  before: readonly MetricSample[] = [],
): [number, number][] {
  const sum = (from: readonly MetricSample[]) => {
    const byLe = new Map<number, number>();
    for (const sample of from) {
      if (sample.name !== `${name}_bucket`) continue;
      const le = sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le);
      byLe.set(le, (byLe.get(le) ?? 0) + sample.value);
    }
    return byLe;
  };
  const after = sum(samples);
  const earlier = sum(before);
  return [...after]
    .map(([le, count]): [number, number] => [le, count - (earlier.get(le) ?? 0)])
    .sort((a, b) => a[0] - b[0]);
}

/**
 * The `q` quantile (0–1) of a cumulative histogram: the upper bound of the first bucket holding it,
 * as Prometheus buckets allow no finer answer. NaN when the histogram is empty.
 */
export function histogramQuantile(buckets: readonly [number, number][], q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0) return NaN;
  const wanted = q * total;
  return buckets.find(([, count]) => count >= wanted)?.[0] ?? Infinity;
}
