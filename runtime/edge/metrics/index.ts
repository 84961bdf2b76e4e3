// `metricsPlugin(...)`: Prometheus exposition through prom-client. One request hook
// instruments every answer svc gives (application routes, edge routes, the neutral 404/405, errors); GET
// /metrics is an edge route answering the registry's text format. Labels are route templates, never raw URLs.
import { collectDefaultMetrics, type Registry, type RegistryContentType } from 'prom-client';
import type { App, Plugin } from '../../app/app.js';
import { existingHookSlots, hookSlots } from '../../http/hook-slots.js';
import type { RequestHook, Route, RouteHandler } from '../../http/types.js';
import { createInstruments } from './instruments.js';
import { methodLabel, routeLabel } from './labels.js';
import type { RouteSeries } from './series.js';
import { resolveMetricsOptions, type MetricsPluginOptions } from './options.js';

export { DEFAULT_DURATION_BUCKETS, DEFAULT_METRICS_PATH } from './options.js';
export type { MetricsPluginOptions } from './options.js';
export { METRIC_NAMES } from './instruments.js';
export { OTHER_METHOD_LABEL, UNMATCHED_ROUTE_LABEL } from './labels.js';

export interface MetricsPlugin extends Plugin {
  /** The registry /metrics exports: register the application's own metrics on it. */
  readonly registry: Registry<RegistryContentType>;
}

/** `app.register(metricsPlugin())`; `plugin.registry` takes the application's own metrics. */
export function metricsPlugin(options: MetricsPluginOptions = {}): MetricsPlugin {
  const {
    registry,
    prefix,
    buckets,
    path,
    collectDefaultMetrics: withDefaults,
  } = resolveMetricsOptions(options);
  const table = createInstruments(registry, prefix, buckets);
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix });

  const exposition: RouteHandler = async ({ reply }) => {
    const text = await registry.metrics();
    reply.header('content-type', registry.contentType);
    reply.header('cache-control', 'no-store');
    return text;
  };
  const metricsRoute: Route = {
    method: 'GET',
    url: path,
    edge: true,
    meta: {},
    handler: exposition as Route['handler'],
  };
  // Scrapes are not traffic: counting them would make every dashboard show the scraper's own rhythm.
  const isScrape = (route: Route | undefined) =>
    route !== undefined && route.edge === true && route.method === 'GET' && route.url === path;

  // Only requests this hook counted up are counted down: a hook registered earlier may answer (or throw)
  // before this one runs, and the response hooks still see that answer. The series counted up is kept on
  // the request's context under a symbol of this plugin (a WeakMap cost more than the rest of the hook).
  const counted = Symbol('svc:metrics in flight');
  const hook: RequestHook = {
    name: 'svc:metrics',
    onRequest({ request, route }) {
      if (isScrape(route)) return;
      const series = table.route(methodLabel(request.method), routeLabel(route));
      series.inFlight += 1;
      hookSlots(request)[counted] = series;
    },
    onResponse({ request, route, status, durationMs }) {
      if (isScrape(route)) return;
      const slots = existingHookSlots(request);
      let series = slots?.[counted] as RouteSeries | undefined;
      if (slots === undefined || series === undefined) {
        series = table.route(methodLabel(request.method), routeLabel(route));
      } else {
        series.inFlight -= 1;
        slots[counted] = undefined;
      }
      table.observe(series, status, durationMs / 1000);
    },
  };

  return {
    name: 'svc:metrics',
    registry,
    setup(app: App) {
      app.metadata.add('http:request-hooks', hook);
      app.metadata.add('http:routes', metricsRoute);
    },
  };
}
