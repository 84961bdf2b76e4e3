// app.close() with a request under way, on every adapter: the request still gets its answer, and close()
// resolves once it has, although the client keeps its connection alive (it would otherwise wait for the
// server's keep-alive timeout, set to 10 minutes here).
import { Agent, request as httpRequest, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApp, route, type Plugin, type Route } from 'svckit';
import { expressPlugin } from 'svckit/express';
import { fastifyPlugin } from 'svckit/fastify';
import { honoPlugin } from 'svckit/hono';

const KEEP_ALIVE_MS = 600_000;

interface Adapter {
  name: string;
  /** The adapter's plugin, and how to give its server that keep-alive timeout once it listens. */
  serve(routes: Route[]): { plugin: Plugin; keepAlive(): void };
}

/** Express and Hono expose their node server; Fastify takes the timeout as an option. */
function nodeServerAdapter(plugin: Plugin & { readonly server: Server | undefined }) {
  return { plugin, keepAlive: () => void (plugin.server!.keepAliveTimeout = KEEP_ALIVE_MS) };
}

const adapters: Adapter[] = [
  {
    name: 'fastify',
    serve: (routes) => ({
      plugin: fastifyPlugin({ routes, onError: false, fastify: { keepAliveTimeout: KEEP_ALIVE_MS } }),
      keepAlive: () => undefined,
    }),
  },
  { name: 'express', serve: (routes) => nodeServerAdapter(expressPlugin({ routes, onError: false })) },
  { name: 'hono', serve: (routes) => nodeServerAdapter(honoPlugin({ routes, onError: false })) },
];

/** A GET over `agent`; resolves with the answer and the socket it came on. */
function get(url: string, agent: Agent): Promise<{ status: number; body: string; socket: Socket }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    httpRequest({ host: target.hostname, port: target.port, path: target.pathname, agent }, (res) => {
      // Captured now: once the answer is read, the socket goes back to the agent and leaves `res`.
      const socket = res.socket;
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket }));
    })
      .on('error', reject)
      .end();
  });
}

function closed(socket: Socket): Promise<void> {
  return socket.destroyed
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));
}

describe.each(adapters)('close() with a request in flight on $name', (adapter) => {
  it('answers it with its 200, then closes the keep-alive connections and resolves', async () => {
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const routes = [
      route({
        method: 'GET',
        url: '/slow',
        handler: async () => {
          reached();
          await released;
          return { done: true };
        },
      }),
      route({ method: 'GET', url: '/quick', handler: () => ({ quick: true }) }),
    ];
    const served = adapter.serve(routes);
    const app = createApp({ name: 'test' }).register(served.plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    served.keepAlive();
    const agent = new Agent({ keepAlive: true });
    const slowAgent = new Agent({ keepAlive: true });
    try {
      // One connection already idle, one with the request under way.
      const idle = await get(`${url}/quick`, agent);
      expect(idle.status).toBe(200);
      const slow = get(`${url}/slow`, slowAgent);
      slow.catch(() => undefined); // awaited below; a failure before that is the test's, not unhandled
      await arrived;

      let closeResolved = false;
      const closing = app.close().then(() => (closeResolved = true));
      await closed(idle.socket);
      expect(closeResolved).toBe(false);
      release();
      const answer = await slow;
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '{"done":true}' });
      await closed(answer.socket);
      await closing;
      expect(closeResolved).toBe(true);
    } finally {
      agent.destroy();
      slowAgent.destroy();
      await app.close();
    }
  }, 10_000);
});
