// metricsPlugin's instruments as prom-client's Registry sees them: the JSON view, resetMetrics() and the
// OpenMetrics format work as for prom-client's own metric classes.
import { Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createApp, createPipeline, metricsPlugin, route } from 'svckit';
import { FakeReply, fakeRequest } from './fake-io.js';

interface JsonSample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

async function served(registry: Registry<RegistryContentType>, requests: number): Promise<void> {
  const app = createApp({ name: 'metrics' });
  app.register(metricsPlugin({ registry }));
  await app.boot();
  const pipeline = createPipeline({ hooks: app.metadata.list('http:request-hooks') });
  const compiled = pipeline.compile(route({ method: 'GET', url: '/notes/:id', handler: () => 'ok' }));
  for (let n = 0; n < requests; n++) {
    await compiled.handle(
      fakeRequest({ url: `/notes/${n}`, context: pipeline.createContext({}) }),
      new FakeReply(),
    );
  }
}

async function samples(registry: Registry<RegistryContentType>, name: string): Promise<JsonSample[]> {
  const metrics = await registry.getMetricsAsJSON();
  const metric = metrics.find((candidate) => candidate.name === name);
  if (metric === undefined) throw new Error(`${name} missing`);
  return metric.values as JsonSample[];
}

const LABELS = { method: 'GET', route: '/notes/:id', status: '200' };

describe('metricsPlugin instruments on a prom-client Registry', () => {
  it('answers getMetricsAsJSON() with the counter, the histogram buckets and the gauge', async () => {
    const registry = new Registry();
    await served(registry, 3);
    expect(await samples(registry, 'http_requests_total')).toEqual([{ value: 3, labels: LABELS }]);
    const histogram = await samples(registry, 'http_request_duration_seconds');
    expect(histogram.find((sample) => sample.metricName?.endsWith('_count'))).toMatchObject({
      value: 3,
      labels: LABELS,
    });
    const infinite = histogram.find((sample) => sample.labels.le === '+Inf');
    expect(infinite).toMatchObject({ value: 3, metricName: 'http_request_duration_seconds_bucket' });
    const buckets = histogram.filter((sample) => sample.metricName?.endsWith('_bucket'));
    const counts = buckets.map((sample) => sample.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b)); // cumulative
    expect(await samples(registry, 'http_requests_in_flight')).toEqual([
      { value: 0, labels: { method: 'GET', route: '/notes/:id' } },
    ]);
  });

  it('resetMetrics() zeroes the counter and the histogram and keeps the in-flight gauge', async () => {
    const registry = new Registry();
    await served(registry, 2);
    registry.resetMetrics();
    expect(await samples(registry, 'http_requests_total')).toEqual([{ value: 0, labels: LABELS }]);
    const histogram = await samples(registry, 'http_request_duration_seconds');
    expect(histogram.every((sample) => sample.value === 0)).toBe(true);
    expect((await samples(registry, 'http_requests_in_flight'))[0]?.value).toBe(0);
  });

  it('writes the OpenMetrics format when the registry asks for it', async () => {
    const registry = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    await served(registry, 1);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE http_requests counter');
    expect(text).toContain('http_requests_total{method="GET",route="/notes/:id",status="200"} 1');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*\} 1/);
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
  });
});
