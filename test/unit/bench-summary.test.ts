import {
  histogramBuckets,
  histogramQuantile,
  linearFit,
  metricSum,
  parsePrometheus,
  percentile,
  summarize,
} from '../../bench/summary';

describe("the benchmarks' summary helpers", () => {
  it('takes nearest-rank percentiles, and NaN of nothing', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(summarize([1, 2, 3, 10])).toEqual({ count: 4, p50: 2, p99: 10, max: 10, mean: 4 });
  });

  it('fits a line, and gives the mean when x never varies', () => {
    const { slope, intercept } = linearFit([0, 1, 2, 3], [5, 7, 9, 11]);
    expect(slope).toBeCloseTo(2);
    expect(intercept).toBeCloseTo(5);
    expect(linearFit([4, 4], [1, 3])).toEqual({ slope: NaN, intercept: 2 });
  });

  it('reads Prometheus text and the quantiles of a histogram over an interval', () => {
    const scrape = (counts: [number, number, number]) =>
      parsePrometheus(
        [
          '# HELP latency Latency',
          '# TYPE latency histogram',
          `latency_bucket{queue="a",le="100"} ${counts[0]}`,
          `latency_bucket{queue="a",le="500"} ${counts[1]}`,
          `latency_bucket{queue="a",le="+Inf"} ${counts[2]}`,
          'evictions{queue="a"} 3',
          'evictions{queue="b"} 4',
        ].join('\n'),
      );
    const before = scrape([10, 10, 10]);
    const after = scrape([60, 108, 110]);
    expect(metricSum(after, 'evictions')).toBe(7);
    expect(metricSum(after, 'evictions', { queue: 'b' })).toBe(4);
    const buckets = histogramBuckets(after, 'latency', before);
    expect(buckets).toEqual([
      [100, 50],
      [500, 98],
      [Infinity, 100],
    ]);
    expect(histogramQuantile(buckets, 0.5)).toBe(100);
    expect(histogramQuantile(buckets, 0.9)).toBe(500);
    expect(histogramQuantile(buckets, 0.99)).toBe(Infinity);
    expect(histogramQuantile([], 0.5)).toBeNaN();
  });
});
