// The tallies behind the HTTP metrics. A request costs two map lookups and a few field writes here; the
// Prometheus values are assembled from these tallies only when /metrics is scraped (instruments.ts).
// prom-client's own inc/observe turn a labels object into a string key on every call: metrics alone then
// cost about a fifth of svc's req/s on the edge bench's routes (`npm run bench -- edge`), about 4 % now.
import type { InFlightLabel, RequestLabel } from './instruments.js';
import { isStatusCode, statusLabel } from './labels.js';

/** One `method` + `route` + `status` series: the request counter and the duration histogram. */
export interface StatusSeries {
  readonly labels: Readonly<Record<RequestLabel, string>>;
  /** `http_requests_total`. */
  requests: number;
  /** Histogram count and sum (seconds). */
  observations: number;
  sum: number;
  /** Observations per bucket, not cumulative: index i counts values <= bounds[i] and > bounds[i - 1]. */
  readonly buckets: Float64Array;
}

/** One `method` + `route` pair: the in-flight gauge and the status series under it. */
export interface RouteSeries {
  readonly labels: Readonly<Record<InFlightLabel, string>>;
  inFlight: number;
  readonly statuses: Map<number, StatusSeries>;
}

export class SeriesTable {
  /** Upper bounds of the histogram buckets, strictly increasing; +Inf is implied. */
  readonly bounds: readonly number[];
  /** route label -> method label -> series. Both labels come from bounded sets (labels.ts). */
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
  }

  /** The series of a method and route label, created on first use. */
  route(method: string, route: string): RouteSeries {
    let byMethod = this.routes.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { labels: { method, route }, inFlight: 0, statuses: new Map() };
      byMethod.set(method, series);
    }
    return series;
  }

  /** Counts one answer with `status` that took `seconds`. */
  observe(route: RouteSeries, status: number, seconds: number): void {
    // Every status outside 100-599 shares the one 'invalid' series, under key 0.
    const key = isStatusCode(status) ? status : 0;
    let series = route.statuses.get(key);
    if (series === undefined) {
      series = {
        labels: { ...route.labels, status: statusLabel(status) },
        requests: 0,
        observations: 0,
        sum: 0,
        buckets: new Float64Array(this.bounds.length + 1),
      };
      route.statuses.set(key, series);
    }
    series.requests += 1;
    series.observations += 1;
    series.sum += seconds;
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && seconds > (bounds[index] as number)) index++;
    (series.buckets[index] as number) += 1;
  }

  *routeSeries(): IterableIterator<RouteSeries> {
    for (const byMethod of this.routes.values()) yield* byMethod.values();
  }

  *statusSeries(): IterableIterator<StatusSeries> {
    for (const route of this.routeSeries()) yield* route.statuses.values();
  }
}
