// What both login bench servers do: the account routes of `auth` on Fastify, plus edge routes that report the
// event loop's delay, measured inside the server, between resets.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { authPlugin, createApp, route, type Auth } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { announce } from './shared.js';

/** The histogram records whole sampling intervals; the delay is what exceeds one. */
const RESOLUTION_MS = 10;

export async function startLoginBenchServer(auth: Auth): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const probes = [
    route({ method: 'POST', url: '/__delay/reset', handler: () => void delay.reset() }),
    route({
      method: 'GET',
      url: '/__delay',
      handler: () => ({
        p50Ms: Math.max(0, delay.percentile(50) / 1e6 - RESOLUTION_MS),
        p99Ms: Math.max(0, delay.percentile(99) / 1e6 - RESOLUTION_MS),
        maxMs: Math.max(0, delay.max / 1e6 - RESOLUTION_MS),
      }),
    }),
  ];
  const app = createApp({ name: 'bench' });
  app.register(authPlugin({ auth }));
  app.register(fastifyPlugin({ routes: probes }));
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  announce(url);
}
