// The node server lifecycle Express and Hono share (runtime/adapters/node/server.ts): the `requestTimeout`
// option holds (408 in the envelope), and close() ends a keep-alive connection as soon as the request under
// way on it is answered, instead of waiting for node's keep-alive timeout.
import { Agent, request as httpRequest, type RequestListener, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApp, route, type Plugin } from 'svckit';
import { expressPlugin } from 'svckit/express';
import { honoPlugin } from 'svckit/hono';
import { NodeServer } from '../../runtime/adapters/node/server.js';
import { parseRawResponse, rawSocket } from './harness.js';

interface NodeAdapter {
  name: string;
  plugin(options: { routes: ReturnType<typeof route>[]; requestTimeout?: number }): Plugin & {
    readonly server: Server | undefined;
  };
}

const nodeAdapters: NodeAdapter[] = [
  { name: 'express', plugin: (options) => expressPlugin({ onError: false, ...options }) },
  { name: 'hono', plugin: (options) => honoPlugin({ onError: false, ...options }) },
];

describe.each(nodeAdapters)('node server on $name', (adapter) => {
  it('answers a request that does not arrive within requestTimeout with 408 REQUEST_TIMEOUT', async () => {
    const routes = [route({ method: 'GET', url: '/where', handler: () => 'here' })];
    const plugin = adapter.plugin({ routes, requestTimeout: 200 });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(plugin.server?.requestTimeout).toBe(200);
      // Headers never finish: node's request timeout fires (its checks run often enough) and svc answers.
      const response = parseRawResponse(await rawSocket(url, 'GET /where HTTP/1.1\r\nHost: x\r\n'));
      expect(response.status).toBe(408);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'REQUEST_TIMEOUT', message: 'Request timed out.' },
      });
    } finally {
      await app.close();
    }
  });

  it('close() answers the request under way, then closes its keep-alive connection', async () => {
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = route({
      method: 'GET',
      url: '/slow',
      handler: async () => {
        reached();
        await released;
        return { done: true };
      },
    });
    const plugin = adapter.plugin({ routes: [slow] });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    // Without the close sweep the idle connection would stay open this long, and close() with it.
    (plugin.server as Server).keepAliveTimeout = 600_000;
    const agent = new Agent({ keepAlive: true });
    try {
      const target = new URL(`${url}/slow`);
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        httpRequest({ host: target.hostname, port: target.port, path: target.pathname, agent }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
          .on('error', reject)
          .end();
      });
      await arrived;
      const closing = app.close();
      release();
      expect(await answer).toEqual({ status: 200, body: '{"done":true}' });
      await closing;
      expect(plugin.server).toBeUndefined();
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});

describe('NodeServer.listen', () => {
  it('two listen() calls at once: one server binds, the other call is refused, and close() leaves none', async () => {
    const node = new NodeServer('test', 0);
    const handler: RequestListener = (_request, response) => response.end('ok');
    const attempts = await Promise.allSettled([
      node.listen(handler, { port: 0, host: '127.0.0.1' }, () => undefined),
      node.listen(handler, { port: 0, host: '127.0.0.1' }, () => undefined),
    ]);
    expect(attempts.map((attempt) => attempt.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = attempts.find((attempt) => attempt.status === 'rejected');
    expect(String((refused as PromiseRejectedResult).reason)).toMatch(/already listening/);
    const server = node.current;
    expect(server?.listening).toBe(true);
    await node.close();
    expect(server?.listening).toBe(false);
  });

  it('a failed listen() leaves the server free to listen again', async () => {
    const node = new NodeServer('test', 0);
    const handler: RequestListener = (_request, response) => response.end('ok');
    await expect(node.listen(handler, { port: 0, host: '203.0.113.1' }, () => undefined)).rejects.toThrow();
    expect(node.current).toBeUndefined();
    await node.listen(handler, { port: 0, host: '127.0.0.1' }, () => undefined);
    await node.close();
  });
});
