// Closing a server whose client stopped reading an answer that never ends: the idle sweep closes finished
// keep-alive connections at once, and the drain deadline cuts the busy one instead of waiting forever.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeDraining } from '../../runtime/adapters/fastify/close.js';
import { sweepIdleConnections } from '../../runtime/adapters/node/idle-sweep.js';

/** Opens a GET whose answer starts and then stalls; resolves once the first bytes arrived. */
function stalledDownload(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/stall' }, (response) => {
      response.once('data', () => {
        // Stop reading: the server's writes back up, and its answer never finishes.
        response.pause();
        resolve();
      });
    });
    outgoing.on('error', () => undefined);
    outgoing.on('close', () => undefined);
    outgoing.end();
    setTimeout(() => reject(new Error('no first bytes')), 5_000).unref();
  });
}

const outcome = (closing: Promise<unknown>, ms: number) =>
  Promise.race([
    closing.then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('pending'), ms)),
  ]);

describe('closing while a download stalls', () => {
  it('a node server cuts the busy connection at the drain deadline, not before', async () => {
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(Buffer.alloc(64 * 1024, 1));
      // Never ends.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await stalledDownload((server.address() as AddressInfo).port);
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    const stop = sweepIdleConnections(server, 300);
    try {
      expect(await outcome(closing, 100)).toBe('pending');
      expect(await outcome(closing, 2_000)).toBe('closed');
    } finally {
      stop();
      // Should the deadline not have cut it, the stalled connection must not outlive the test.
      server.closeAllConnections();
    }
  });

  it('Fastify closes after its drain deadline although an answer never ends', async () => {
    const instance = Fastify();
    instance.get('/stall', (_request, reply) => {
      reply.raw.writeHead(200, { 'content-type': 'application/octet-stream' });
      reply.raw.write(Buffer.alloc(64 * 1024, 1));
      return reply.hijack();
    });
    await instance.listen({ port: 0, host: '127.0.0.1' });
    await stalledDownload((instance.server.address() as AddressInfo).port);
    try {
      expect(await outcome(closeDraining(instance, 200), 3_000)).toBe('closed');
    } finally {
      instance.server.closeAllConnections();
    }
  });
});

describe('sweepIdleConnections', () => {
  afterEach(() => vi.useRealTimers());

  it('closes idle connections at once and then every few ms, cuts every connection at the deadline only', () => {
    vi.useFakeTimers();
    const server = { closeIdleConnections: vi.fn(), closeAllConnections: vi.fn() };
    const stop = sweepIdleConnections(server, 1_000);
    expect(server.closeIdleConnections).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(server.closeIdleConnections.mock.calls.length).toBeGreaterThan(2);
    vi.advanceTimersByTime(899);
    expect(server.closeAllConnections).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(server.closeAllConnections).toHaveBeenCalledTimes(1);
    stop();
  });

  it('once stopped (the server closed), neither sweeps nor cuts anything', () => {
    vi.useFakeTimers();
    const server = { closeIdleConnections: vi.fn(), closeAllConnections: vi.fn() };
    sweepIdleConnections(server, 1_000)();
    vi.advanceTimersByTime(5_000);
    expect(server.closeIdleConnections).toHaveBeenCalledTimes(1);
    expect(server.closeAllConnections).not.toHaveBeenCalled();
  });
});
