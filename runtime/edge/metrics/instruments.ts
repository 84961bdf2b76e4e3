// The three HTTP instruments on the plugin's registry: request counter, duration histogram, in-flight gauge.
// They are read-only views over the SeriesTable the request hook writes to: prom-client's Registry asks each
// registered metric for its values when /metrics is scraped (`get()`), so the exposition, the application's
// own metrics next to them, `getMetricsAsJSON()` and cluster aggregation all work as with prom-client's
// classes, while a request never pays for prom-client's label hashing.
import type { Metric, Registry, RegistryContentType } from 'prom-client';
import { SeriesTable } from './series.js';
import { invalidOption } from '../../config/option-errors.js';

export type RequestLabel = 'method' | 'route' | 'status';
export type InFlightLabel = 'method' | 'route';

export const METRIC_NAMES = {
  requests: 'http_requests_total',
  duration: 'http_request_duration_seconds',
  inFlight: 'http_requests_in_flight',
} as const;

interface MetricSample {
  value: number;
  labels: Readonly<Record<string, string>>;
  /** Set on histogram samples: `<name>_bucket`, `<name>_sum` or `<name>_count`. */
  metricName?: string;
}

/** What prom-client's Registry reads from a registered metric (`metrics()`, `getMetricsAsJSON()`, `resetMetrics()`). */
abstract class TableView {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  /** Summed across workers by prom-client's AggregatorRegistry. */
  readonly aggregator = 'sum';
  // Not readonly: the Registry renames counters when it writes the OpenMetrics format.
  name: string;
  readonly help: string;
  protected readonly table: SeriesTable;

  constructor(name: string, help: string, table: SeriesTable) {
    this.name = name;
    this.help = help;
    this.table = table;
  }

  protected abstract samples(): MetricSample[];

  /** Clears what `registry.resetMetrics()` may clear. */
  abstract reset(): void;

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricSample[] }> {
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.samples(),
    });
  }
}

class RequestCounter extends TableView {
  readonly type = 'counter';

  protected samples(): MetricSample[] {
    const samples: MetricSample[] = [];
    for (const series of this.table.statusSeries()) {
      samples.push({ value: series.requests, labels: series.labels });
    }
    return samples;
  }

  reset(): void {
    for (const series of this.table.statusSeries()) series.requests = 0;
  }
}

class DurationHistogram extends TableView {
  readonly type = 'histogram';

  protected samples(): MetricSample[] {
    const samples: MetricSample[] = [];
    const bounds = this.table.bounds;
    for (const series of this.table.statusSeries()) {
      let cumulative = 0;
      for (let index = 0; index <= bounds.length; index++) {
        cumulative += series.buckets[index] as number;
        const le = index < bounds.length ? String(bounds[index]) : '+Inf';
        samples.push({
          metricName: `${this.name}_bucket`,
          value: cumulative,
          labels: { ...series.labels, le },
        });
      }
      samples.push({ metricName: `${this.name}_sum`, value: series.sum, labels: series.labels });
      samples.push({ metricName: `${this.name}_count`, value: series.observations, labels: series.labels });
    }
    return samples;
  }

  reset(): void {
    for (const series of this.table.statusSeries()) {
      series.observations = 0;
      series.sum = 0;
      series.buckets.fill(0);
    }
  }
}

class InFlightGauge extends TableView {
  readonly type = 'gauge';

  protected samples(): MetricSample[] {
    const samples: MetricSample[] = [];
    for (const series of this.table.routeSeries()) {
      samples.push({ value: series.inFlight, labels: series.labels });
    }
    return samples;
  }

  /** The gauge is what is in flight right now; zeroing it would only make it go negative. */
  reset(): void {}
}

/** Registers the three instruments on `registry` and returns the table the request hook fills. */
export function createInstruments(
  registry: Registry<RegistryContentType>,
  prefix: string,
  buckets: number[],
): SeriesTable {
  for (const name of Object.values(METRIC_NAMES)) {
    // prom-client's own message does not say which plugin collided; name the fix instead.
    if (registry.getSingleMetric(prefix + name) !== undefined) {
      throw invalidOption(
        'metricsPlugin()',
        'registry',
        'a registry without svc metrics of the same prefix: give each metricsPlugin its own registry or prefix',
        `it already has a metric named "${prefix + name}"`,
      );
    }
  }
  const table = new SeriesTable(buckets);
  const views: TableView[] = [
    new RequestCounter(
      prefix + METRIC_NAMES.requests,
      'HTTP requests answered, by method, route template and status.',
      table,
    ),
    new DurationHistogram(
      prefix + METRIC_NAMES.duration,
      'Time from the start of handling to the end of the response, in seconds.',
      table,
    ),
    new InFlightGauge(
      prefix + METRIC_NAMES.inFlight,
      'HTTP requests being handled right now, by method and route template.',
      table,
    ),
  ];
  // The Registry's declared parameter is prom-client's class union; what it reads is TableView's members.
  for (const view of views) registry.registerMetric(view as unknown as Metric);
  return table;
}
