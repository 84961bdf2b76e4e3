// The metrics series table: one series per method, route and status; statuses outside 100-599 share one
// 'invalid' series, so a broken adapter cannot create series without bound; buckets count each observation once.
import { describe, expect, it } from 'vitest';
import { SeriesTable } from '../../runtime/edge/metrics/series.js';

describe('SeriesTable', () => {
  it('keeps one series per status and folds every invalid status into one', () => {
    const table = new SeriesTable([0.1, 1]);
    const route = table.route('GET', '/notes');
    for (const status of [200, 200, 42, 700, 200.5, Number.NaN]) table.observe(route, status, 0.05);
    const series = [...table.statusSeries()].map((entry) => [entry.labels.status, entry.requests]);
    expect(series).toEqual([
      ['200', 2],
      ['invalid', 4],
    ]);
    expect(table.route('GET', '/notes')).toBe(route);
  });

  it('puts each observation in the first bucket whose bound it does not exceed, +Inf last', () => {
    const table = new SeriesTable([0.1, 1]);
    const route = table.route('POST', '/notes');
    for (const seconds of [0.1, 0.5, 1, 3]) table.observe(route, 201, seconds);
    const [series] = [...table.statusSeries()];
    expect([...(series?.buckets ?? [])]).toEqual([1, 2, 1]);
    expect(series?.observations).toBe(4);
    expect(series?.sum).toBeCloseTo(4.6);
  });
});
