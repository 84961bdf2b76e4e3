// The login bench server: svc on Fastify with the account routes and one registered user (scrypt at its
// default cost). Edge routes report the event loop's delay, measured inside the server, between resets.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Auth, authPlugin, createApp, route } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { BENCH_AUTH_SECRET, LOGIN_USER } from './auth-secret.js';
import { announce } from './shared.js';

const auth = new Auth({ secret: BENCH_AUTH_SECRET, loginThrottle: false });
await auth.register(LOGIN_USER.email, LOGIN_USER.password);
/** The histogram records whole sampling intervals; the delay is what exceeds one. */
const RESOLUTION_MS = 10;
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
