// The node:http server the Express and Hono adapters listen on (Fastify runs its own): svc's request timeout
// with connection checks frequent enough to hold it, client errors answered in the envelope, and a close
// that ends keep-alive connections instead of waiting for their idle timeout.
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { ClientError } from '../../http/client-error.js';
import type { Duplex } from 'node:stream';
import { sweepIdleConnections } from './idle-sweep.js';
import { listenOn, type ServerAddress } from './listen.js';

/** Checks per request timeout: node only notices a late request when it checks (every 30 s by default). */
const CHECKS_PER_TIMEOUT = 10;
const MAX_CHECK_INTERVAL_MS = 30_000;

export class NodeServer {
  private readonly requestTimeout: number;
  private readonly owner: string;
  private server: Server | undefined;

  /** `owner` names the adapter in errors; `requestTimeout` in ms, 0 turns it off. */
  constructor(owner: string, requestTimeout: number) {
    this.owner = owner;
    this.requestTimeout = requestTimeout;
  }

  /** The node server, while listening. */
  get current(): Server | undefined {
    return this.server;
  }

  /** `onClientError` answers errors node raises before a request exists (client-error.ts). */
  async listen(
    handler: RequestListener,
    options: { port: number; host: string },
    onClientError: (error: ClientError, socket: Duplex) => void,
  ): Promise<ServerAddress> {
    if (this.server) throw new Error(`The ${this.owner} adapter is already listening.`);
    const timeout = this.requestTimeout;
    const settings: ServerOptions = { requestTimeout: timeout };
    // Node only notices an expired request when it checks; check often enough that the timeout holds.
    if (timeout > 0) {
      settings.connectionsCheckingInterval = Math.min(
        MAX_CHECK_INTERVAL_MS,
        Math.ceil(timeout / CHECKS_PER_TIMEOUT),
      );
    }
    const server = createServer(settings, handler);
    server.on('clientError', onClientError);
    // Taken before the wait, so a second listen() meanwhile is refused instead of binding a server that
    // close() would never see.
    this.server = server;
    try {
      return await listenOn(server, options.port, options.host);
    } catch (error) {
      this.server = undefined;
      throw error;
    }
  }

  /**
   * Stops accepting connections and resolves once every connection is gone. Requests under way finish;
   * idle keep-alive connections are closed at once and the others as soon as their request is answered.
   */
  close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    this.server = undefined;
    return new Promise<void>((resolve, reject) => {
      let stopSweeping = () => {};
      server.close((error) => {
        stopSweeping();
        if (error) reject(error);
        else resolve();
      });
      stopSweeping = sweepIdleConnections(server);
    });
  }
}
