// The login throttle under a burst, over real HTTP (issue 16): 50
// wrong passwords sent at once from one address, then the right one. Every attempt reserves its place before
// its password is hashed, so at most 5 passwords are checked, the right one answers 429 AUTH_LOCKED, on every
// adapter (memory store), on every throttle store (one adapter), and on two app instances sharing Redis or
// PostgreSQL. Passwords checked are counted at the user source: a sign-in looks the email up once, right
// before it hashes the password (also for unknown emails), and never otherwise.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Auth,
  LoginThrottle,
  MemoryThrottleStore,
  MemoryUserSource,
  authPlugin,
  openStores,
  type Stores,
  type ThrottleStore,
  type UserSource,
} from 'svckit';
import { createDatabase, startRedis, type TestDatabase, type TestRedis } from '../backends.js';
import { adapters, call, type AdapterUnderTest, type RunningServer } from './harness.js';

const SECRET = 'a-test-secret-that-is-32-chars-!';
// Quick, yet slow enough (a few ms) that the burst's attempts overlap while passwords are checked.
const HASH = { ln: 10, r: 8, p: 1 };
const PASSWORD = 'the right password';
const BURST = 50;

/** A user source that counts lookups by email, shared by every app instance of a test (one database). */
function countingUsers(): { users: UserSource; lookups: () => number; reset: () => void } {
  const memory = new MemoryUserSource();
  let lookups = 0;
  const users: UserSource = {
    findByEmail: (email) => {
      lookups++;
      return memory.findByEmail(email);
    },
    findById: (id) => memory.findById(id),
    create: (user) => memory.create(user),
    update: (id, patch) => memory.update(id, patch),
  };
  return { users, lookups: () => lookups, reset: () => void (lookups = 0) };
}

/** One app instance: its own Auth and LoginThrottle over `store`, the account routes on `adapter`. */
function startInstance(adapter: AdapterUnderTest, users: UserSource, store: ThrottleStore) {
  const auth = new Auth({
    secret: SECRET,
    passwordHash: HASH,
    users,
    loginThrottle: new LoginThrottle({ store }),
  });
  return adapter.start({ routes: [], plugins: [authPlugin({ auth })] });
}

const login = (server: RunningServer, email: string, password: string) =>
  call(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

const answerOf = (answer: { status: number; json: unknown }) =>
  `${answer.status} ${(answer.json as { error?: { code?: string } }).error?.code ?? ''}`.trim();

/**
 * Registers an account, fires BURST wrong passwords at once (spread over the instances in turn), then the
 * right one: how many passwords were checked, and every answer.
 */
async function burstThenRight(
  servers: RunningServer[],
  counted: ReturnType<typeof countingUsers>,
): Promise<{ checked: number; burst: string[]; right: string }> {
  const email = `burst-${randomBytes(4).toString('hex')}@example.com`;
  const registered = await call(`${servers[0]!.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(registered.status).toBe(201);
  counted.reset();
  const burst = await Promise.all(
    Array.from({ length: BURST }, (_, n) => login(servers[n % servers.length]!, email, 'a wrong password')),
  );
  const right = await login(servers[BURST % servers.length]!, email, PASSWORD);
  return { checked: counted.lookups(), burst: burst.map(answerOf), right: answerOf(right) };
}

function expectThrottled({ checked, burst, right }: Awaited<ReturnType<typeof burstThenRight>>): void {
  expect(checked).toBeLessThanOrEqual(5);
  // Each password checked answers 401, but the one that reached the limit, which answers 429 like the rest.
  const unauthorized = burst.filter((answer) => answer === '401 AUTH_INVALID_CREDENTIALS').length;
  expect(unauthorized).toBeLessThanOrEqual(4);
  expect(burst.filter((answer) => answer === '429 AUTH_LOCKED')).toHaveLength(BURST - unauthorized);
  expect(right).toBe('429 AUTH_LOCKED');
}

describe.each(adapters)('login throttle under a burst on $name (memory store)', (adapter) => {
  it(`checks at most 5 of ${BURST} wrong passwords sent at once; the right one then answers AUTH_LOCKED`, async () => {
    const counted = countingUsers();
    const server = await startInstance(adapter, counted.users, new MemoryThrottleStore());
    try {
      expectThrottled(await burstThenRight([server], counted));
    } finally {
      await server.close();
    }
  });
});

describe('login throttle under a burst on every shared throttle store', () => {
  const adapter = adapters[0]!;
  let database: TestDatabase;
  let redis: TestRedis;
  const opened: Stores[] = [];

  beforeAll(async () => {
    [database, redis] = await Promise.all([createDatabase(), startRedis()]);
  }, 60_000);

  afterAll(async () => {
    for (const stores of opened) await stores.close();
    await redis?.kill();
    await database?.drop();
  });

  /** The throttle store of a fresh connection to the backend (each app instance opens its own). */
  async function throttleStore(
    backend: 'pglite' | 'postgres' | 'redis',
    prefix = 'svc:',
  ): Promise<ThrottleStore> {
    const config =
      backend === 'pglite'
        ? { database: 'pglite:memory' }
        : backend === 'postgres'
          ? { database: database.url }
          : { database: 'memory', redis: redis.url };
    const stores = await openStores(config, { migrate: true, sweepIntervalMs: 0, redisPrefix: prefix });
    opened.push(stores);
    if (stores.throttle === undefined) throw new Error(`${backend}: no throttle store`);
    return stores.throttle;
  }

  it.each(['pglite', 'postgres', 'redis'] as const)(
    `%s: checks at most 5 of ${BURST} wrong passwords sent at once; the right one then answers AUTH_LOCKED`,
    async (backend) => {
      const counted = countingUsers();
      const server = await startInstance(adapter, counted.users, await throttleStore(backend));
      try {
        expectThrottled(await burstThenRight([server], counted));
      } finally {
        await server.close();
      }
    },
    120_000, // an embedded PGlite takes seconds to start, more on a busy machine
  );

  it.each(['redis', 'postgres'] as const)(
    `two app instances on one %s (own connections, Auth and LoginThrottle) check at most 5 passwords between them`,
    async (backend) => {
      const counted = countingUsers();
      const prefix = `svc-burst-${randomBytes(4).toString('hex')}:`;
      const [a, b] = [adapters[0]!, adapters[adapters.length - 1]!];
      const first = await startInstance(a, counted.users, await throttleStore(backend, prefix));
      const second = await startInstance(b, counted.users, await throttleStore(backend, prefix));
      try {
        expectThrottled(await burstThenRight([first, second], counted));
      } finally {
        await first.close();
        await second.close();
      }
    },
    30_000,
  );
});
