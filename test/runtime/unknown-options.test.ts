// Issue 16 item 5: every options object of the runtime refuses a key it does not know when the options are
// read (at construction, plugin creation or start), with a TypeError naming the owner, the key and, when one
// is close, the key probably meant (config/known-options.ts). A correct options object still constructs.
//
// The SQL and Redis stores are built on a client that throws when touched: construction must not query.
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { App, createApp } from '../../runtime/app/app.js';
import { serve } from '../../runtime/app/serve.js';
import type { ServerConfig } from '../../runtime/config/svc-config.js';
import { MemoryOneTimeTokenStore } from '../../runtime/auth/stores/memory-one-time-tokens.js';
import { MemoryRefreshTokenStore } from '../../runtime/auth/stores/memory-refresh-tokens.js';
import { MemorySessionStore } from '../../runtime/auth/stores/memory-sessions.js';
import { MemoryUserSource } from '../../runtime/auth/stores/memory-users.js';
import { healthPlugin } from '../../runtime/edge/health/index.js';
import { metricsPlugin } from '../../runtime/edge/metrics/index.js';
import { securityPlugin } from '../../runtime/edge/security/index.js';
import { inMemoryExporter } from '../../runtime/edge/tracing/memory-exporter.js';
import { otlpHttpExporter } from '../../runtime/edge/tracing/otlp-exporter.js';
import { tracingPlugin } from '../../runtime/edge/tracing/index.js';
import { SvcError } from '../../runtime/http/errors.js';
import { toErrorResponse } from '../../runtime/http/envelope.js';
import { rawBody } from '../../runtime/http/raw-body.js';
import { route } from '../../runtime/http/route.js';
import { sse } from '../../runtime/http/sse.js';
import { stream } from '../../runtime/http/stream.js';
import { upload } from '../../runtime/http/upload/options.js';
import { MemoryIdempotencyStore } from '../../runtime/idempotency/memory-store.js';
import { openStores } from '../../runtime/stores/open.js';
import { closeRedis, openRedis, type RedisClient } from '../../runtime/stores/redis/client.js';
import { RedisIdempotencyStore } from '../../runtime/stores/redis/idempotency.js';
import { RedisOneTimeTokenStore } from '../../runtime/stores/redis/one-time-tokens.js';
import { RedisRateLimitStore } from '../../runtime/stores/redis/rate-limit.js';
import { RedisRefreshTokenStore } from '../../runtime/stores/redis/refresh-tokens.js';
import { RedisSessionStore } from '../../runtime/stores/redis/sessions.js';
import { redisStores } from '../../runtime/stores/redis/stores.js';
import { openSqlClient, type SqlClient, type SqlQueryable } from '../../runtime/stores/sql/client.js';
import { SqlIdempotencyStore } from '../../runtime/stores/sql/idempotency.js';
import { checkSchema, migrate } from '../../runtime/stores/sql/migrate.js';
import { SqlRateLimitStore } from '../../runtime/stores/sql/rate-limit.js';
import { sqlStores } from '../../runtime/stores/sql/stores.js';
import { SqlSweeper } from '../../runtime/stores/sql/sweep.js';
import { SqlUserSource } from '../../runtime/stores/sql/users.js';
import { freePort } from '../backends.js';

/** A client any use of which fails the test: the stores must only keep it at construction. */
const untouchable = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`the client was touched at construction (${String(property)})`);
    },
  },
);
const sqlClient = untouchable as SqlClient;
const redisClient = untouchable as RedisClient;

/** A SQL client answering every statement with no rows, for migrate() and checkSchema(). */
const emptyDatabase: SqlClient = {
  kind: 'postgres',
  query: () => Promise.resolve({ rows: [], rowCount: 0 }),
  transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>) => fn(emptyDatabase),
  ping: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message's start: `<owner>: unknown option "<key>"`, then ` (did you mean "<hint>"?)` or `;`. */
function expected(owner: string, key: string, hint: string | undefined): RegExp {
  const after = hint === undefined ? ';' : ` \\(did you mean "${escape(hint)}"\\?\\);`;
  return new RegExp(`^${escape(owner)}: unknown option "${escape(key)}"${after} it takes `);
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejected(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectRefused(action: () => unknown, owner: string, key: string, hint?: string): void {
  const error = thrown(action);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message).toMatch(expected(owner, key, hint));
}

async function expectRejected(
  action: () => Promise<unknown>,
  owner: string,
  key: string,
  hint?: string,
): Promise<void> {
  const error = await rejected(action);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message).toMatch(expected(owner, key, hint));
}

/** Options with a key their type does not have, as a JavaScript caller (or a cast) may pass them. */
const misspelt = (options: Record<string, unknown>) => options as never;

describe('edge plugins', () => {
  it('securityPlugin() and its nested headers, cors and rateLimit', () => {
    expectRefused(() => securityPlugin(misspelt({ cros: {} })), 'securityPlugin()', 'cros', 'cors');
    expectRefused(
      () => securityPlugin({ headers: misspelt({ hts: false }) }),
      'securityPlugin(): headers',
      'hts',
      'hsts',
    );
    expectRefused(
      () => securityPlugin({ cors: misspelt({ orign: ['https://app.example.com'] }) }),
      'securityPlugin(): cors',
      'orign',
      'origin',
    );
    expectRefused(
      () => securityPlugin({ rateLimit: misspelt({ limit: 5, windowMS: 1000 }) }),
      'securityPlugin(): rateLimit',
      'windowMS',
      'windowMs',
    );
    expect(
      securityPlugin({
        headers: { hsts: false, contentSecurityPolicy: false, documentHeaders: true },
        cors: {
          origin: ['https://app.example.com'],
          credentials: true,
          methods: ['GET'],
          headers: ['x-a'],
          exposeHeaders: ['x-b'],
          maxAge: 5,
        },
        rateLimit: { limit: 5, windowMs: 1000 },
      }).name,
    ).toBe('svc:security');
  });

  it('metricsPlugin()', () => {
    expectRefused(() => metricsPlugin(misspelt({ buckts: [1] })), 'metricsPlugin()', 'buckts', 'buckets');
    expect(metricsPlugin({ prefix: 'x_', buckets: [1], path: '/m', collectDefaultMetrics: false }).name).toBe(
      'svc:metrics',
    );
  });

  it('healthPlugin(), but not the names of its checks', () => {
    expectRefused(
      () => healthPlugin(misspelt({ checkTimeout: 100 })),
      'healthPlugin()',
      'checkTimeout',
      'checkTimeoutMs',
    );
    const checks = { anyName: () => ({ ok: true }) };
    expect(healthPlugin({ checks, checkTimeoutMs: 100 }).name).toBe('svc:health');
  });

  it('tracingPlugin() and the exporters it takes, but not the OTLP request header names', () => {
    expectRefused(
      () => tracingPlugin(misspelt({ servicename: 'x' })),
      'tracingPlugin()',
      'servicename',
      'serviceName',
    );
    expectRefused(
      () => otlpHttpExporter(misspelt({ url: 'http://127.0.0.1:4318/v1/traces', batchsize: 10 })),
      'otlpHttpExporter()',
      'batchsize',
      'batchSize',
    );
    expectRefused(
      () => inMemoryExporter(misspelt({ maxSpan: 1 })),
      'inMemoryExporter()',
      'maxSpan',
      'maxSpans',
    );
    const exporter = otlpHttpExporter({
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { 'x-any-header': 'a' },
      batchSize: 1,
      intervalMs: 1,
      maxQueueSize: 1,
      timeoutMs: 1,
    });
    expect(tracingPlugin({ serviceName: 'x', exporter }).exporter).toBe(exporter);
    expect(inMemoryExporter({ maxSpans: 2 }).spans).toEqual([]);
  });
});

describe('the HTTP helpers', () => {
  it('route(), naming the route, before its other checks', () => {
    expectRefused(
      () => route(misspelt({ method: 'GET', url: '/notes', handle: () => 'x' })),
      'route() GET /notes',
      'handle',
      'handler',
    );
    expectRefused(
      () =>
        route(
          misspelt({ id: 'listNotes', method: 'GET', url: '/notes', handler: () => 'x', bodyRequierd: 1 }),
        ),
      'route() listNotes (GET /notes)',
      'bodyRequierd',
      'bodyRequired',
    );
    const built = route({
      id: 'addNote',
      method: 'post',
      url: '/notes',
      params: { type: 'object' },
      query: { type: 'object' },
      body: { type: 'object' },
      bodyRequired: false,
      response: { 201: { type: 'object' } },
      successStatus: 201,
      meta: { anyPluginKey: true } as never,
      handler: () => 'x',
    });
    expect(built.successStatus).toBe(201);
  });

  it('rawBody() and upload()', () => {
    expectRefused(() => rawBody(misspelt({ maxbytes: 1 })), 'rawBody()', 'maxbytes', 'maxBytes');
    expectRefused(
      () => upload(misspelt({ maxBytes: 10, maxFiles: 1, maxFile: 1 })),
      'upload()',
      'maxFile',
      'maxFiles',
    );
    expect(rawBody({ maxBytes: 1 }).maxBytes).toBe(1);
    expect(
      upload({
        maxBytes: 10,
        maxFiles: 1,
        maxFileBytes: 5,
        maxFields: 1,
        maxFieldBytes: 1,
        maxHeaderBytes: 100,
        allowedTypes: ['image/*'],
      }).limits.maxFileBytes,
    ).toBe(5);
  });

  it('stream(), closing the source it refuses, and sse(), but not the names of stream headers', () => {
    const source = Readable.from(['x']);
    expectRefused(
      () => stream(source, misspelt({ contentype: 'text/plain' })),
      'stream()',
      'contentype',
      'contentType',
    );
    expect(source.destroyed).toBe(true);
    expectRefused(
      () => sse(() => undefined, misspelt({ heartbeat: 10 })),
      'sse()',
      'heartbeat',
      'heartbeatMs',
    );
    const streamed = stream(Readable.from(['x']), {
      contentType: 'text/plain',
      contentLength: 1,
      filename: 'a.txt',
      disposition: 'inline',
      headers: { 'x-any-header': 'a' },
      status: 201,
    });
    expect(streamed.headers['x-any-header']).toBe('a');
    streamed.body().destroy();
    expect(sse(() => undefined, { heartbeatMs: 10, maxDurationMs: 10 }).headers['content-type']).toMatch(
      /^text\/event-stream/,
    );
  });

  it('toErrorResponse()', () => {
    const error = new SvcError(400, 'NOPE', 'no');
    expectRefused(
      () => toErrorResponse(error, misspelt({ redactDetail: false })),
      'toErrorResponse()',
      'redactDetail',
      'redactDetails',
    );
    expect(toErrorResponse(error, { redactDetails: false }).status).toBe(400);
  });
});

describe('the app', () => {
  it('createApp() and new App()', () => {
    expectRefused(() => createApp(misspelt({ nam: 'x' })), 'createApp()', 'nam', 'name');
    expectRefused(() => new App(misspelt({ versoin: '1' })), 'App', 'versoin', 'version');
    expect(createApp({ name: 'a', version: '1' }).version).toBe('1');
  });

  it('app.listen() and serve(), before booting', async () => {
    const app = createApp();
    await expectRejected(() => app.listen(misspelt({ prot: 0 })), 'app.listen()', 'prot', 'port');
    await expectRejected(
      () => serve(app, misspelt({ handleSignal: false })),
      'serve()',
      'handleSignal',
      'handleSignals',
    );
    expect(app.booted).toBe(false);
    // Correct options reach listen, which wants an adapter; so does svc.config.yaml's `server` section, which
    // the scaffolded server.ts passes as it is (`serve(app, config.server)`).
    const server: ServerConfig = { adapter: 'fastify', port: 0, host: '127.0.0.1', entry: 'src/server.ts' };
    await expect(serve(app, server)).rejects.toThrow(/No HTTP adapter/);
    await expect(
      serve(app, { port: 0, host: '127.0.0.1', log: () => undefined, handleSignals: false }),
    ).rejects.toThrow(/No HTTP adapter/);
  });
});

describe('the in-memory stores', () => {
  it('refuse a misspelt key and take their options', () => {
    expectRefused(
      () => new MemorySessionStore(misspelt({ maxEntires: 1 })),
      'MemorySessionStore',
      'maxEntires',
      'maxEntries',
    );
    expectRefused(
      () => new MemoryRefreshTokenStore(misspelt({ maxentries: 1 })),
      'MemoryRefreshTokenStore',
      'maxentries',
      'maxEntries',
    );
    expectRefused(
      () => new MemoryOneTimeTokenStore(misspelt({ maxEntrie: 1 })),
      'MemoryOneTimeTokenStore',
      'maxEntrie',
      'maxEntries',
    );
    expectRefused(
      () => new MemoryUserSource(misspelt({ maxUser: 1 })),
      'MemoryUserSource',
      'maxUser',
      'maxUsers',
    );
    expectRefused(
      () => new MemoryIdempotencyStore(misspelt({ ttlMS: 1 })),
      'MemoryIdempotencyStore',
      'ttlMS',
      'ttlMs',
    );
    expect(new MemorySessionStore({ maxEntries: 1 }).maxEntries).toBe(1);
    expect(new MemoryRefreshTokenStore({ maxEntries: 1 }).maxEntries).toBe(1);
    expect(new MemoryOneTimeTokenStore({ maxEntries: 1 }).maxEntries).toBe(1);
    expect(new MemoryUserSource({ maxUsers: 1, users: [], newId: () => 'a' }).maxUsers).toBe(1);
    expect(new MemoryIdempotencyStore({ ttlMs: 1, maxEntries: 1, now: Date.now }).ttlMs).toBe(1);
  });
});

describe('the SQL stores', () => {
  it('refuse a misspelt key without touching the client, and take their options', () => {
    expectRefused(
      () => new SqlUserSource(sqlClient, misspelt({ newID: () => 'a' })),
      'SqlUserSource',
      'newID',
      'newId',
    );
    expectRefused(
      () => new SqlIdempotencyStore(sqlClient, misspelt({ ttlMS: 1 })),
      'SqlIdempotencyStore',
      'ttlMS',
      'ttlMs',
    );
    expectRefused(
      () => new SqlRateLimitStore(sqlClient, misspelt({ clock: Date.now })),
      'SqlRateLimitStore',
      'clock',
    );
    expectRefused(
      () => new SqlSweeper(sqlClient, misspelt({ interval: 1000 })),
      'SqlSweeper',
      'interval',
      'intervalMs',
    );
    expectRefused(
      () => sqlStores(sqlClient, misspelt({ newUserID: () => 'a' })),
      'sqlStores()',
      'newUserID',
      'newUserId',
    );
    expect(new SqlUserSource(sqlClient, { newId: () => 'a', now: Date.now })).toBeInstanceOf(SqlUserSource);
    expect(new SqlIdempotencyStore(sqlClient, { ttlMs: 1, now: Date.now }).ttlMs).toBe(1);
    expect(new SqlRateLimitStore(sqlClient, { now: Date.now })).toBeInstanceOf(SqlRateLimitStore);
    const sweeper = new SqlSweeper(sqlClient, {
      intervalMs: 60_000,
      now: Date.now,
      onError: () => undefined,
    });
    void sweeper.stop();
    expect(Object.keys(sqlStores(sqlClient, { now: Date.now, newUserId: () => 'a' }))).toContain('users');
  });

  it('migrate(), checkSchema() and openSqlClient(), before any statement or connection', async () => {
    await expectRejected(
      () => migrate(sqlClient, misspelt({ migration: [] })),
      'migrate()',
      'migration',
      'migrations',
    );
    await expectRejected(() => checkSchema(sqlClient, misspelt({ now: Date.now })), 'checkSchema()', 'now');
    await expectRejected(
      () => openSqlClient('postgres://127.0.0.1:1/none', misspelt({ connectionTimeoutMs: 1 })),
      'openSqlClient()',
      'connectionTimeoutMs',
      'connectionTimeoutMillis',
    );
    expect(await migrate(emptyDatabase, { migrations: [], now: Date.now })).toEqual({ applied: [] });
    await checkSchema(emptyDatabase, { migrations: [] });
    // A pool connects on its first query: made and closed here, it never connects.
    const client = await openSqlClient('postgres://127.0.0.1:1/none', {
      max: 1,
      connectionTimeoutMillis: 1,
      queryTimeoutMillis: 1,
      onIdleError: () => undefined,
    });
    await client.close();
  });
});

describe('the Redis stores', () => {
  it('refuse a misspelt key without touching the client, and take their options', () => {
    expectRefused(
      () => new RedisIdempotencyStore(redisClient, misspelt({ ttl: 1 })),
      'RedisIdempotencyStore',
      'ttl',
      'ttlMs',
    );
    expectRefused(
      () => new RedisRateLimitStore(redisClient, misspelt({ prefx: 'a:' })),
      'RedisRateLimitStore',
      'prefx',
      'prefix',
    );
    expectRefused(
      () => new RedisSessionStore(redisClient, misspelt({ keyPrefix: 'a:' })),
      'RedisSessionStore',
      'keyPrefix',
      'prefix',
    );
    expectRefused(
      () => new RedisRefreshTokenStore(redisClient, misspelt({ keyPrefix: 'a:' })),
      'RedisRefreshTokenStore',
      'keyPrefix',
      'prefix',
    );
    expectRefused(
      () => new RedisOneTimeTokenStore(redisClient, misspelt({ keyPrefix: 'a:' })),
      'RedisOneTimeTokenStore',
      'keyPrefix',
      'prefix',
    );
    expectRefused(() => redisStores(redisClient, misspelt({ clock: Date.now })), 'redisStores()', 'clock');
    expect(new RedisIdempotencyStore(redisClient, { prefix: 'a:', ttlMs: 1, now: Date.now }).ttlMs).toBe(1);
    expect(new RedisRateLimitStore(redisClient, { prefix: 'a:', now: Date.now })).toBeInstanceOf(
      RedisRateLimitStore,
    );
    expect(new RedisSessionStore(redisClient, { prefix: 'a:' })).toBeInstanceOf(RedisSessionStore);
    expect(new RedisRefreshTokenStore(redisClient, { prefix: 'a:' })).toBeInstanceOf(RedisRefreshTokenStore);
    expect(new RedisOneTimeTokenStore(redisClient, { prefix: 'a:' })).toBeInstanceOf(RedisOneTimeTokenStore);
    expect(Object.keys(redisStores(redisClient, { prefix: 'a:', now: Date.now }))).toContain('sessions');
  });

  it('openRedis(), before connecting', async () => {
    // Nothing listens on this port: openRedis resolves after the first failed attempt and keeps retrying.
    const url = `redis://127.0.0.1:${await freePort()}`;
    await expectRejected(
      () => openRedis(url, misspelt({ commandTimeout: 10 })),
      'openRedis()',
      'commandTimeout',
      'commandTimeoutMs',
    );
    const client = await openRedis(url, {
      commandTimeoutMs: 10,
      connectTimeoutMs: 10,
      onError: () => undefined,
    });
    await closeRedis(client);
  });
});

describe('openStores()', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const stores of opened) await stores.close();
  });

  it('refuses a misspelt key of its options and of the stores config, before opening anything', async () => {
    await expectRejected(
      () => openStores(misspelt({ databse: 'postgres://127.0.0.1:1/none' })),
      'openStores(): config',
      'databse',
      'database',
    );
    await expectRejected(
      () => openStores({}, misspelt({ redisPrefx: 'a:' })),
      'openStores()',
      'redisPrefx',
      'redisPrefix',
    );
    const stores = await openStores(
      { database: 'memory' },
      { migrate: false, projectDir: '.', redisPrefix: 'a:', sweepIntervalMs: 0 },
    );
    opened.push(stores);
    expect(stores.database).toBe('memory');
  });
});
