// The options of metricsPlugin (none required), checked once at creation so a
// typo throws a TypeError naming the option instead of silently exporting nothing.
import { Registry, type RegistryContentType } from 'prom-client';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

export interface MetricsPluginOptions {
  /**
   * The prom-client registry the HTTP metrics are registered on and /metrics exports. Default: a new one,
   * exposed as `plugin.registry` so the application registers its own metrics next to svc's.
   */
  registry?: Registry<RegistryContentType>;
  /** Prepended to every metric name (`myapp_` → `myapp_http_requests_total`). Default '' (no prefix). */
  prefix?: string;
  /** Upper bounds of the request-duration histogram, in seconds, strictly increasing. Default DEFAULT_DURATION_BUCKETS. */
  buckets?: readonly number[];
  /** Where the exposition is served. Default '/metrics'. */
  path?: string;
  /** Also collect prom-client's process metrics (CPU, memory, event loop lag, GC) with the same prefix. Default false. */
  collectDefaultMetrics?: boolean;
}

/** Request durations from 5 ms to 10 s: the usual spread of an HTTP API, in seconds. */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
export const DEFAULT_METRICS_PATH = '/metrics';

export interface ResolvedMetricsOptions {
  registry: Registry<RegistryContentType>;
  prefix: string;
  buckets: number[];
  path: string;
  collectDefaultMetrics: boolean;
}

const OWNER = 'metricsPlugin()';
/** The keys of MetricsPluginOptions; any other is refused at creation. */
const KNOWN_OPTIONS = optionKeys<MetricsPluginOptions>({
  registry: true,
  prefix: true,
  buckets: true,
  path: true,
  collectDefaultMetrics: true,
});
/** Prometheus metric-name characters; a prefix may be empty. */
const METRIC_NAME_PREFIX = /^(?:[a-zA-Z_:][a-zA-Z0-9_:]*)?$/;
/** A literal path: no parameters, wildcards, query or fragment, so it names exactly one route. */
const LITERAL_PATH = /^\/[A-Za-z0-9\-._~/]*$/;

function isRegistry(value: unknown): value is Registry<RegistryContentType> {
  if (value instanceof Registry) return true;
  // Another copy of prom-client (a different version in the app) makes instanceof fail; accept its shape.
  const candidate = value as Partial<Record<keyof Registry, unknown>> | null;
  return (
    candidate !== null &&
    typeof candidate === 'object' &&
    typeof candidate.metrics === 'function' &&
    typeof candidate.registerMetric === 'function' &&
    typeof candidate.getSingleMetric === 'function' &&
    typeof candidate.contentType === 'string'
  );
}

function checkedBuckets(buckets: unknown): number[] {
  if (!Array.isArray(buckets) || buckets.length === 0) {
    throw invalidOption(OWNER, 'buckets', 'a non-empty array of seconds');
  }
  let previous = 0;
  for (const bound of buckets as unknown[]) {
    if (typeof bound !== 'number' || !Number.isFinite(bound) || bound <= previous) {
      throw invalidOption(OWNER, 'buckets', 'finite positive numbers in strictly increasing order');
    }
    previous = bound;
  }
  return [...(buckets as number[])];
}

export function resolveMetricsOptions(options: MetricsPluginOptions): ResolvedMetricsOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOptions(OWNER);
  }
  rejectUnknownOptions(options, KNOWN_OPTIONS, OWNER);
  const registry = options.registry ?? new Registry();
  if (!isRegistry(registry)) throw invalidOption(OWNER, 'registry', 'a prom-client Registry');
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string' || !METRIC_NAME_PREFIX.test(prefix)) {
    throw invalidOption(OWNER, 'prefix', 'empty or match [a-zA-Z_:][a-zA-Z0-9_:]*');
  }
  const path = options.path ?? DEFAULT_METRICS_PATH;
  if (typeof path !== 'string' || !LITERAL_PATH.test(path) || path === '/') {
    throw invalidOption(OWNER, 'path', `a literal path such as '/metrics' (no parameters or query)`);
  }
  const collectDefaultMetrics = options.collectDefaultMetrics ?? false;
  if (typeof collectDefaultMetrics !== 'boolean') {
    throw invalidOption(OWNER, 'collectDefaultMetrics', 'a boolean');
  }
  const buckets = checkedBuckets(options.buckets ?? DEFAULT_DURATION_BUCKETS);
  return { registry, prefix, buckets, path, collectDefaultMetrics };
}
