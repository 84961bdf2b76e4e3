// Closing the Fastify instance so that it drains instead of hanging. Fastify closes the connections idle when
// close() begins, but not those whose request was under way then: they are swept as they become idle, as the
// node server of the other adapters does.
import type { FastifyInstance } from 'fastify';
import { sweepIdleConnections } from '../node/idle-sweep.js';

/** Requests under way are answered; their connections close once idle. Resolves when Fastify has closed. */
export async function closeDraining(instance: FastifyInstance): Promise<void> {
  const server = instance.server as { closeIdleConnections?: () => void };
  // HTTP/2 servers have no idle HTTP/1 connections to sweep (Fastify closes their sessions itself).
  const stopSweeping =
    typeof server.closeIdleConnections === 'function'
      ? sweepIdleConnections(server as { closeIdleConnections(): void })
      : undefined;
  try {
    await instance.close();
  } finally {
    stopSweeping?.();
  }
}
