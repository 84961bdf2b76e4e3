// metricsPlugin on every adapter: GET /metrics answers the Prometheus text format
// from prom-client; every request is counted, timed and tracked in flight, labelled by route template and
// never by raw URL; /metrics itself runs no enrichers or guards.
import { get as httpGet } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpError, metricsPlugin, route, stream, type Plugin, type RequestHook } from 'svckit';
import { adapters, call, denyAllPlugin, rawRequest, withServer } from './harness.js';

interface ParsedSample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  metrics: ParsedSample[];
}
// The parser ships CommonJS without types; this is the part of its shape the tests read.
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => ParsedFamily[];

async function scrape(url: string, path = '/metrics'): Promise<ParsedFamily[]> {
  const response = await call(`${url}${path}`);
  expect(response.status).toBe(200);
  return parsePrometheusText(response.text);
}

function family(families: ParsedFamily[], name: string): ParsedFamily {
  const found = families.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`metric ${name} missing`);
  return found;
}

function sameLabels(sample: ParsedSample, labels: Record<string, string>): boolean {
  const actual = sample.labels ?? {};
  const keys = Object.keys(labels);
  return Object.keys(actual).length === keys.length && keys.every((key) => actual[key] === labels[key]);
}

/** A counter or gauge value for exact labels; 0 when the series does not exist. */
function valueOf(families: ParsedFamily[], name: string, labels: Record<string, string>): number {
  const sample = family(families, name).metrics.find((candidate) => sameLabels(candidate, labels));
  return sample === undefined ? 0 : Number(sample.value);
}

/** Sum of a gauge over all its series. */
function total(families: ParsedFamily[], name: string): number {
  return family(families, name).metrics.reduce((sum, sample) => sum + Number(sample.value), 0);
}

/** `key="value"` pairs of one sample line (svc's label values hold no quotes or commas). */
function lineLabels(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
}

/**
 * One histogram series read from the text. The parser merges a histogram's labelled series into one and
 * drops their labels, so it only proves the text is well-formed; the numbers are read here.
 */
function histogram(
  text: string,
  name: string,
  labels: Record<string, string>,
): { count: number; sum: number; buckets: Record<string, number> } {
  const result = { count: 0, sum: 0, buckets: {} as Record<string, number> };
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match === null) continue;
    const [, sample = '', labelText = '', value = ''] = match;
    const { le, ...rest } = lineLabels(labelText);
    if (!sameLabels({ labels: rest }, labels)) continue;
    if (sample === `${name}_count`) result.count = Number(value);
    else if (sample === `${name}_sum`) result.sum = Number(value);
    else if (sample === `${name}_bucket` && le !== undefined) result.buckets[le] = Number(value);
  }
  return result;
}

function hookPlugin(hook: RequestHook): Plugin {
  return { name: hook.name, setup: (app) => void app.metadata.add('http:request-hooks', hook) };
}

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the check passes: onResponse runs right after the write, a moment after the client saw it. */
async function eventually(check: () => Promise<void>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(10);
    }
  }
}

const noteRoutes = [
  route({
    method: 'GET',
    url: '/notes/:id',
    handler: ({ request }) => {
      const id = request.params.id;
      if (id === 'missing') throw new HttpError(404, 'NOT_FOUND', 'No such note.');
      if (id === 'broken') throw new Error('database is down');
      return { id };
    },
  }),
  route({
    method: 'POST',
    url: '/notes',
    handler: () => {
      throw new HttpError(409, 'CONFLICT', 'Already exists.');
    },
  }),
];

describe.each(adapters)('metricsPlugin on $name', (adapter) => {
  it('labels a body the framework refused on a known route with that route, not as unmatched', async () => {
    await withServer(adapter, { routes: noteRoutes, plugins: [metricsPlugin()] }, async (url) => {
      const malformed = await call(`${url}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"title":',
      });
      expect(malformed.status).toBe(400);
      await eventually(async () => {
        const families = await scrape(url);
        expect(
          valueOf(families, 'http_requests_total', { method: 'POST', route: '/notes', status: '400' }),
        ).toBe(1);
        expect(
          valueOf(families, 'http_requests_total', { method: 'POST', route: 'unmatched', status: '400' }),
        ).toBe(0);
      });
    });
  });

  it('counts and times requests by method, route template and status, in the text format', async () => {
    const plugin = metricsPlugin();
    await withServer(adapter, { routes: noteRoutes, plugins: [plugin] }, async (url) => {
      expect((await call(`${url}/notes/1`)).status).toBe(200);
      expect((await call(`${url}/notes/2?secret=token`)).status).toBe(200);
      expect((await call(`${url}/notes/missing`)).status).toBe(404);
      expect((await call(`${url}/notes/broken`)).status).toBe(500);
      expect((await call(`${url}/notes`, { method: 'POST' })).status).toBe(409);
      expect((await call(`${url}/nowhere`)).status).toBe(404);

      const response = await call(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(plugin.registry.contentType);
      expect(response.headers.get('cache-control')).toBe('no-store');
      // Raw URLs, parameter values and query strings never become labels.
      expect(response.text).not.toMatch(/\/notes\/1|\/notes\/2|secret|token|nowhere/);

      await eventually(async () => {
        const families = await scrape(url);
        const requests = family(families, 'http_requests_total');
        expect(requests.type).toBe('COUNTER');
        const count = (method: string, routeLabel: string, status: string) =>
          valueOf(families, 'http_requests_total', { method, route: routeLabel, status });
        expect(count('GET', '/notes/:id', '200')).toBe(2);
        expect(count('GET', '/notes/:id', '404')).toBe(1);
        expect(count('GET', '/notes/:id', '500')).toBe(1);
        expect(count('POST', '/notes', '409')).toBe(1);
        expect(count('GET', 'unmatched', '404')).toBe(1);
        expect(requests.metrics).toHaveLength(5);

        expect(family(families, 'http_request_duration_seconds').type).toBe('HISTOGRAM');
        const text = (await call(`${url}/metrics`)).text;
        const ok = histogram(text, 'http_request_duration_seconds', {
          method: 'GET',
          route: '/notes/:id',
          status: '200',
        });
        expect(ok.count).toBe(2);
        expect(ok.buckets['+Inf']).toBe(2);
        expect(Object.keys(ok.buckets)).toHaveLength(12);
        expect(ok.sum).toBeGreaterThan(0);
        expect(ok.sum).toBeLessThan(5);
        const conflict = { method: 'POST', route: '/notes', status: '409' };
        expect(histogram(text, 'http_request_duration_seconds', conflict).count).toBe(1);
        const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
        expect(histogram(text, 'http_request_duration_seconds', unmatched).count).toBe(1);
        expect(text.match(/^http_request_duration_seconds_count\{/gm)).toHaveLength(5);

        expect(family(families, 'http_requests_in_flight').type).toBe('GAUGE');
        expect(total(families, 'http_requests_in_flight')).toBe(0);
      });
    });
  });

  it('excludes the scrapes themselves from every metric', async () => {
    await withServer(adapter, { routes: [], plugins: [metricsPlugin()] }, async (url) => {
      await scrape(url);
      await scrape(url);
      const text = (await call(`${url}/metrics`)).text;
      expect(text).not.toContain('route="/metrics"');
    });
  });

  it('keeps one series for any number of unmatched paths and methods (cardinality attack)', async () => {
    await withServer(adapter, { routes: noteRoutes, plugins: [metricsPlugin()] }, async (url) => {
      const paths = Array.from(
        { length: 1000 },
        (_, index) => `/probe-${index}-${Math.random().toString(36)}`,
      );
      for (let start = 0; start < paths.length; start += 50) {
        const batch = paths.slice(start, start + 50).map((path) => call(`${url}${path}`));
        for (const response of await Promise.all(batch)) expect(response.status).toBe(404);
      }
      // Methods node parses but svc does not route; node itself answers 400 to unknown ones like BREW.
      for (const method of ['PROPFIND', 'MKCOL', 'SEARCH', 'BREW']) {
        const response = await rawRequest(url, { method, path: `/notes/${method}` });
        expect(response.status).toBeGreaterThanOrEqual(400);
      }
      await eventually(async () => {
        const families = await scrape(url);
        const requests = family(families, 'http_requests_total');
        const unmatched = requests.metrics.filter((sample) => sample.labels?.method === 'GET');
        expect(unmatched).toHaveLength(1);
        expect(
          valueOf(families, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
        ).toBe(1000);
        // Odd methods collapse into OTHER whatever status each adapter gives them; node's own 400 for BREW
        // runs the request hooks too, so it is counted as well.
        const odd = requests.metrics.filter((sample) => sample.labels?.method !== 'GET');
        expect(odd.every((sample) => sample.labels?.method === 'OTHER')).toBe(true);
        expect(odd.reduce((sum, sample) => sum + Number(sample.value), 0)).toBe(4);
        const text = (await call(`${url}/metrics`)).text;
        expect(text.match(/^http_request_duration_seconds_count\{/gm)).toHaveLength(requests.metrics.length);
        const probes = { method: 'GET', route: 'unmatched', status: '404' };
        expect(histogram(text, 'http_request_duration_seconds', probes).count).toBe(1000);
        expect(total(families, 'http_requests_in_flight')).toBe(0);
      });
      const text = (await call(`${url}/metrics`)).text;
      expect(text).not.toContain('probe-');
      expect(text).not.toMatch(/PROPFIND|MKCOL|SEARCH|BREW/);
    });
  });

  it('tracks requests in flight and returns to 0, also when the client went away', async () => {
    const slow = gate();
    const entered: Array<() => void> = [];
    const routes = [
      route({
        method: 'GET',
        url: '/slow/:id',
        handler: async () => {
          entered.shift()?.();
          await slow.wait;
          return { done: true };
        },
      }),
    ];
    await withServer(adapter, { routes, plugins: [metricsPlugin()] }, async (url) => {
      const started = new Promise<void>((resolve) => entered.push(resolve));
      const abortedStarted = new Promise<void>((resolve) => entered.push(resolve));
      const finishing = call(`${url}/slow/1`);
      const controller = new AbortController();
      const aborted = fetch(`${url}/slow/2`, { signal: controller.signal }).catch(() => 'aborted');
      await Promise.all([started, abortedStarted]);

      const during = await scrape(url);
      expect(valueOf(during, 'http_requests_in_flight', { method: 'GET', route: '/slow/:id' })).toBe(2);
      expect(during.map((entry) => JSON.stringify(entry))).not.toContain('/slow/1');

      controller.abort();
      expect(await aborted).toBe('aborted');
      await sleep(20);
      slow.open();
      expect((await finishing).status).toBe(200);
      await eventually(async () => {
        const after = await scrape(url);
        expect(valueOf(after, 'http_requests_in_flight', { method: 'GET', route: '/slow/:id' })).toBe(0);
        expect(
          valueOf(after, 'http_requests_total', { method: 'GET', route: '/slow/:id', status: '200' }),
        ).toBe(2);
      });
    });
  });

  it('returns in-flight to 0 after a stream, also one the client abandoned', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/download',
        handler: () => stream(Readable.from(['a', 'b', 'c'])),
      }),
      route({
        method: 'GET',
        url: '/endless',
        handler: () =>
          stream(
            (async function* endless() {
              for (;;) {
                yield Buffer.alloc(16 * 1024, 0x61);
                await sleep(5);
              }
            })(),
          ),
      }),
    ];
    const plugin = metricsPlugin();
    await withServer(adapter, { routes, plugins: [plugin] }, async (url) => {
      expect((await call(`${url}/download`)).text).toBe('abc');
      // The client reads one chunk, then cuts the connection.
      await new Promise<void>((resolve, reject) => {
        const request = httpGet(`${url}/endless`, { agent: false }, (response) => {
          response.once('data', () => {
            request.destroy();
            resolve();
          });
        });
        request.on('error', (error: NodeJS.ErrnoException) =>
          error.code === 'ECONNRESET' ? resolve() : reject(error),
        );
      });
      await eventually(async () => {
        const families = parsePrometheusText(await plugin.registry.metrics());
        expect(total(families, 'http_requests_in_flight')).toBe(0);
        expect(
          valueOf(families, 'http_requests_total', { method: 'GET', route: '/download', status: '200' }),
        ).toBe(1);
        expect(
          valueOf(families, 'http_requests_total', { method: 'GET', route: '/endless', status: '200' }),
        ).toBe(1);
      });
    });
  });

  it('counts answers given by other request hooks without leaking the in-flight gauge', async () => {
    const before = hookPlugin({
      name: 'answers-first',
      onRequest: ({ request, reply }) => {
        if (request.headers['x-block'] === 'early') reply.finish(429, 'slow down', 'text/plain');
        if (request.headers['x-block'] === 'throw') throw new HttpError(403, 'FORBIDDEN', 'No.');
      },
    });
    const after = hookPlugin({
      name: 'answers-later',
      onRequest: ({ request, reply }) => {
        if (request.headers['x-block'] === 'late') reply.finish(503, 'maintenance', 'text/plain');
      },
    });
    const routes = [route({ method: 'GET', url: '/items/:id', handler: () => ({ ok: true }) })];
    await withServer(adapter, { routes, plugins: [before, metricsPlugin(), after] }, async (url) => {
      expect((await call(`${url}/items/1`, { headers: { 'x-block': 'early' } })).status).toBe(429);
      expect((await call(`${url}/items/1`, { headers: { 'x-block': 'throw' } })).status).toBe(403);
      expect((await call(`${url}/items/1`, { headers: { 'x-block': 'late' } })).status).toBe(503);
      expect((await call(`${url}/items/1`)).status).toBe(200);
      await eventually(async () => {
        const families = await scrape(url);
        const count = (status: string) =>
          valueOf(families, 'http_requests_total', { method: 'GET', route: '/items/:id', status });
        expect([count('429'), count('403'), count('503'), count('200')]).toEqual([1, 1, 1, 1]);
        // Never negative: requests answered before this hook ran were never counted up.
        expect(valueOf(families, 'http_requests_in_flight', { method: 'GET', route: '/items/:id' })).toBe(0);
      });
    });
  });

  it('exports metrics the application registers on plugin.registry, or on its own registry', async () => {
    const plugin = metricsPlugin();
    const orders = new Counter({
      name: 'shop_orders_total',
      help: 'Orders placed.',
      registers: [plugin.registry],
    });
    const own = new Registry();
    const jobs = new Counter({ name: 'jobs_done_total', help: 'Jobs done.', registers: [own] });
    const ownPlugin = metricsPlugin({ registry: own, path: '/internal/metrics' });
    expect(ownPlugin.registry).toBe(own);
    orders.inc(3);
    jobs.inc();
    await withServer(adapter, { routes: [], plugins: [plugin] }, async (url) => {
      expect(valueOf(await scrape(url), 'shop_orders_total', {})).toBe(3);
    });
    await withServer(adapter, { routes: [], plugins: [ownPlugin] }, async (url) => {
      expect((await call(`${url}/metrics`)).status).toBe(404);
      const families = await scrape(url, '/internal/metrics');
      expect(valueOf(families, 'jobs_done_total', {})).toBe(1);
      expect(
        valueOf(families, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
      ).toBe(1);
    });
  });

  it('serves /metrics without enrichers or guards, while application routes stay guarded', async () => {
    const counter = { enriched: 0 };
    const routes = [route({ method: 'GET', url: '/private', handler: () => 'secret' })];
    await withServer(adapter, { routes, plugins: [denyAllPlugin(counter), metricsPlugin()] }, async (url) => {
      expect((await call(`${url}/metrics`)).status).toBe(200);
      expect(counter.enriched).toBe(0);
      expect((await call(`${url}/private`)).status).toBe(401);
      expect(counter.enriched).toBe(1);
      await eventually(async () => {
        const families = await scrape(url);
        expect(
          valueOf(families, 'http_requests_total', { method: 'GET', route: '/private', status: '401' }),
        ).toBe(1);
      });
      expect(counter.enriched).toBe(1);
    });
  });

  it('applies prefix, buckets and collectDefaultMetrics', async () => {
    const plugin = metricsPlugin({ prefix: 'shop_', buckets: [0.1, 1], collectDefaultMetrics: true });
    await withServer(adapter, { routes: noteRoutes, plugins: [plugin] }, async (url) => {
      await call(`${url}/notes/1`);
      await eventually(async () => {
        const families = await scrape(url);
        expect(
          valueOf(families, 'shop_http_requests_total', {
            method: 'GET',
            route: '/notes/:id',
            status: '200',
          }),
        ).toBe(1);
        const text = (await call(`${url}/metrics`)).text;
        const labels = { method: 'GET', route: '/notes/:id', status: '200' };
        const series = histogram(text, 'shop_http_request_duration_seconds', labels);
        expect(Object.keys(series.buckets).sort()).toEqual(['+Inf', '0.1', '1']);
        expect(series.count).toBe(1);
        expect(families.some((entry) => entry.name === 'shop_http_requests_in_flight')).toBe(true);
        expect(families.some((entry) => entry.name === 'shop_process_cpu_user_seconds_total')).toBe(true);
        expect(families.some((entry) => entry.name === 'http_requests_total')).toBe(false);
      });
    });
  });
});

describe('metricsPlugin options', () => {
  it('collects no process metrics unless asked', async () => {
    const text = await metricsPlugin().registry.metrics();
    expect(text).not.toContain('process_cpu');
    expect(text).toContain('http_requests_in_flight');
  });

  it.each([
    [{ prefix: 'my-app' }, /prefix/],
    [{ prefix: '1abc' }, /prefix/],
    [{ buckets: [] }, /buckets/],
    [{ buckets: [1, 0.5] }, /buckets/],
    [{ buckets: [0.1, 0.1] }, /buckets/],
    [{ buckets: [0, 1] }, /buckets/],
    [{ buckets: [0.1, Number.NaN] }, /buckets/],
    [{ buckets: [0.1, Number.POSITIVE_INFINITY] }, /buckets/],
    [{ path: 'metrics' }, /path/],
    [{ path: '/' }, /path/],
    [{ path: '/metrics/:name' }, /path/],
    [{ path: '/metrics?x=1' }, /path/],
    [{ path: '/metrics/*' }, /path/],
    [{ registry: {} }, /registry/],
    [{ collectDefaultMetrics: 'yes' }, /collectDefaultMetrics/],
    [{ buckts: [1] }, /unknown option "buckts"/],
  ])('rejects %o', (options, message) => {
    expect(() => metricsPlugin(options as never)).toThrow(TypeError);
    expect(() => metricsPlugin(options as never)).toThrow(message);
  });

  it('refuses a registry that already holds the HTTP metrics, and accepts it with another prefix', () => {
    const registry = new Registry();
    metricsPlugin({ registry });
    expect(() => metricsPlugin({ registry })).toThrow(/already has a metric named "http_requests_total"/);
    expect(() => metricsPlugin({ registry, prefix: 'admin_' })).not.toThrow();
  });
});
