// Closing the Fastify instance so that it drains instead of hanging. Fastify closes the connections idle when
// close() begins, but not those whose request was under way then: they are swept as they become idle, as the
// node server of the other adapters does.
import type { FastifyInstance } from 'fastify';
import { DRAIN_DEADLINE_MS, sweepIdleConnections, type SweptServer } from '../node/idle-sweep.js';

/**
 * Requests under way are answered; their connections close once idle, and those still busy after
 * `deadlineMs` are cut. Resolves when Fastify has closed.
 */
export async function closeDraining(
  instance: FastifyInstance,
  deadlineMs = DRAIN_DEADLINE_MS,
): Promise<void> {
  const server = instance.server as Partial<SweptServer>;
  // HTTP/2 servers have no idle HTTP/1 connections to sweep (Fastify closes their sessions itself).
  const stopSweeping =
    typeof server.closeIdleConnections === 'function'
      ? sweepIdleConnections(server as SweptServer, deadlineMs)
      : undefined;
  try {
    await instance.close();
  } finally {
    stopSweeping?.();
  }
}
