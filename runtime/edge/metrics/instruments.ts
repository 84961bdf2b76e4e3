// The three HTTP instruments on the plugin's registry: request counter, duration histogram, in-flight gauge.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type RequestLabel = 'method' | 'route' | 'status';
export type InFlightLabel = 'method' | 'route';

export interface HttpInstruments {
  requests: Counter<RequestLabel>;
  duration: Histogram<RequestLabel>;
  inFlight: Gauge<InFlightLabel>;
}

export const METRIC_NAMES = {
  requests: 'http_requests_total',
  duration: 'http_request_duration_seconds',
  inFlight: 'http_requests_in_flight',
} as const;

export function createInstruments(registry: Registry, prefix: string, buckets: number[]): HttpInstruments {
  for (const name of Object.values(METRIC_NAMES)) {
    // prom-client's own message does not say which plugin collided; name the fix instead.
    if (registry.getSingleMetric(prefix + name) !== undefined) {
      throw new TypeError(
        `metricsPlugin(): the registry already has a metric named "${prefix + name}"; ` +
          'give each metricsPlugin its own registry or prefix.',
      );
    }
  }
  const registers = [registry];
  return {
    requests: new Counter({
      name: prefix + METRIC_NAMES.requests,
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    duration: new Histogram({
      name: prefix + METRIC_NAMES.duration,
      help: 'Time from the start of handling to the end of the response, in seconds.',
      labelNames: ['method', 'route', 'status'],
      buckets,
      registers,
    }),
    inFlight: new Gauge({
      name: prefix + METRIC_NAMES.inFlight,
      help: 'HTTP requests being handled right now, by method and route template.',
      labelNames: ['method', 'route'],
      registers,
    }),
  };
}
