// What the end-to-end tests of the reference service on shared stores share: `svc start` processes on a
// fresh PostgreSQL database and a redis-server of their own, and a node:http client that can pick its source
// address (rate limits and the login throttle count per address).
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { REPO_ROOT } from '../cli/run-svc.js';
import {
  createDatabase,
  startRedis,
  tcpProxy,
  throughProxy,
  type TcpProxy,
  type TestRedis,
} from '../backends.js';
import { startService, type RunningService } from './service-process.js';

const SECRET = 'e2e-shared-stores-secret-0123456789abcdef';
export const PASSWORD = 'a long enough password';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  localAddress?: string;
}

/** One request with node:http (fetch would not let the test set `host`, which idempotency keys depend on). */
export function call(
  service: RunningService,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const sent = request(
      `${service.url}${path}`,
      {
        method,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

export const cookieOf = (answer: Answer) => (answer.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
export const errorCode = (answer: Answer) => (answer.body.error as { code?: string } | undefined)?.code;
export const uniqueEmail = (name: string) =>
  `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;

/** The reference service (`svc start`) in development, on the stores `env` names. */
export function start(env: Record<string, string>): Promise<RunningService> {
  return startService(REPO_ROOT, ['start'], { NODE_ENV: 'development', SVC_SECRET: SECRET, ...env });
}

export async function register(service: RunningService, email: string): Promise<Answer> {
  const answer = await call(service, 'POST', '/auth/register', { body: { email, password: PASSWORD } });
  expect(answer.status).toBe(201);
  return answer;
}

export function login(service: RunningService, email: string, password = PASSWORD): Promise<Answer> {
  return call(service, 'POST', '/auth/login', { body: { email, password } });
}

export interface SilentProxy {
  port: number;
  /**
   * Stops passing bytes either way, closing nothing: a silent partition (a peer that stopped answering, a
   * dropped route), which only a timeout or a heartbeat can notice.
   */
  freeze(): void;
  /** Delivers what was held, in order, and passes bytes again (TCP would retransmit them). */
  thaw(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy to `target` that can go silent without closing a connection. */
export async function silentProxy(target: { host: string; port: number }): Promise<SilentProxy> {
  let frozen = false;
  const releases = new Set<() => void>();
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) => {
    const held: Buffer[] = [];
    const release = () => {
      for (const chunk of held.splice(0)) to.write(chunk);
    };
    releases.add(release);
    from.on('data', (chunk: Buffer) => (frozen ? held.push(chunk) : to.write(chunk)));
    from.on('close', () => {
      releases.delete(release);
      to.destroy();
    });
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const release of releases) release();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ServicePair {
  a: RunningService;
  b: RunningService;
  redis: TestRedis;
  /**
   * Between B and Redis when B was started behind them (A always reaches Redis directly): B connects to
   * `silence`, which passes through `proxy` to Redis. `proxy` cuts B off visibly (connections closed), `silence`
   * silently.
   */
  proxy: TcpProxy | undefined;
  silence: SilentProxy | undefined;
  /** Stops both processes, then the backends; safe to call on a pair that only partly started. */
  stop(): Promise<void>;
}

/**
 * Two reference-service processes on a fresh PostgreSQL database and a redis-server of their own, started
 * together (their migrations must not trip over each other). With `redisProxyForB`, B reaches Redis through
 * proxies the test can cut off, visibly or silently, and restore.
 */
export async function startPair(
  env: Record<string, string>,
  options: { redisProxyForB?: boolean } = {},
): Promise<ServicePair> {
  const [database, redis] = await Promise.all([createDatabase(), startRedis()]);
  const parsed = new URL(redis.url);
  const proxy =
    options.redisProxyForB === true
      ? await tcpProxy({ host: parsed.hostname, port: Number(parsed.port) })
      : undefined;
  const silence =
    proxy === undefined ? undefined : await silentProxy({ host: '127.0.0.1', port: proxy.port });
  const shared = { DATABASE_URL: database.url, REDIS_URL: redis.url, ...env };
  const started = await Promise.allSettled([
    start(shared),
    start(silence === undefined ? shared : { ...shared, REDIS_URL: throughProxy(redis.url, silence.port) }),
  ]);
  const stop = async (services: RunningService[]) => {
    await Promise.all(services.map((service) => service.stop()));
    await silence?.close();
    await proxy?.close();
    await redis.kill();
    await database.drop();
  };
  const [a, b] = started;
  if (a.status === 'rejected' || b.status === 'rejected') {
    await stop(started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])));
    throw a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
  }
  return { a: a.value, b: b.value, redis, proxy, silence, stop: () => stop([a.value, b.value]) };
}

/** Two processes (startPair) for the enclosing describe: started before its tests, stopped after them. */
export function twoProcesses(env: Record<string, string>): { a: RunningService; b: RunningService } {
  const running = {} as { a: RunningService; b: RunningService };
  let pair: ServicePair | undefined;
  beforeAll(async () => {
    pair = await startPair(env);
    [running.a, running.b] = [pair.a, pair.b];
  }, 90_000);
  afterAll(async () => {
    await pair?.stop();
  });
  return running;
}
