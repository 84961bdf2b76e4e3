// Every store contract against the SQL stores, for one backend (PGlite or PostgreSQL), then what the SQL client
// and stores promise beyond the contracts, and the sweep. `client` gives the file's migrated client; each test
// starts from empty svc_ tables.
import { describe, expect, it } from 'vitest';
import { HttpError, MemoryThrottleStore, SvcError, type AuthUser, type RefreshTokenRecord } from 'svckit';
import {
  sqlStores,
  sweepExpired,
  SqlIdempotencyStore,
  SqlMcpSessionStore,
  SqlOneTimeTokenStore,
  SqlRateLimitStore,
  SqlRefreshTokenStore,
  SqlSessionStore,
  SqlThrottleStore,
  SqlUserSource,
  type SqlClient,
} from '../../../runtime/stores/sql/index.js';
import { fakeClock } from './fake-clock.js';
import { idempotencyStoreContract } from './idempotency-store.js';
import { mcpSessionStoreContract } from './mcp-session-store.js';
import { oneTimeTokenStoreContract } from './one-time-token-store.js';
import { rateLimitStoreContract } from './rate-limit-store.js';
import { refreshTokenStoreContract } from './refresh-token-store.js';
import { sessionStoreContract } from './session-store.js';
import { throttleStoreContract } from './throttle-store.js';
import { userSourceContract } from './user-source.js';

const T0 = 1_700_000_000_000;

/** The key column of every table with expiring rows. */
const KEY_COLUMNS = {
  svc_sessions: 'id_hash',
  svc_refresh_tokens: 'token_hash',
  svc_refresh_families: 'family_id',
  svc_one_time_tokens: 'token_hash',
  svc_login_throttle: 'key',
  svc_rate_limits: 'key',
  svc_idempotency: 'key',
  svc_mcp_sessions: 'id',
};

/** Empties the svc_ tables. The ambiguity test drops the email index to hold rows differing in case; it comes back. */
export async function resetSqlTables(client: SqlClient): Promise<SqlClient> {
  await client.query(`
    TRUNCATE svc_users, svc_sessions, svc_refresh_tokens, svc_refresh_families, svc_refresh_users,
      svc_one_time_tokens, svc_login_throttle, svc_rate_limits, svc_idempotency, svc_mcp_sessions;
    CREATE UNIQUE INDEX IF NOT EXISTS svc_users_email_key ON svc_users (lower(email));
  `);
  return client;
}

async function rejection(action: Promise<unknown>): Promise<unknown> {
  return action.then(
    () => expect.unreachable('expected a rejection'),
    (caught: unknown) => caught,
  );
}

export function sqlStoreContracts(backend: string, client: () => SqlClient): void {
  const reset = () => resetSqlTables(client());

  /** A source holding exactly `users`, as a database written before the unique email index could. */
  async function seededUsers(users: AuthUser[]): Promise<SqlUserSource> {
    const db = await reset();
    await db.query('DROP INDEX svc_users_email_key');
    for (const user of users) {
      await db.query(
        'INSERT INTO svc_users (id, email, password_hash, email_verified, created_at) VALUES ($1, $2, $3, $4, $5)',
        [user.id, user.email, user.passwordHash ?? null, user.emailVerified, T0],
      );
    }
    return new SqlUserSource(db);
  }

  userSourceContract(`SqlUserSource (${backend})`, async () => new SqlUserSource(await reset()), seededUsers);
  sessionStoreContract(`SqlSessionStore (${backend})`, async () => new SqlSessionStore(await reset()));
  refreshTokenStoreContract(
    `SqlRefreshTokenStore (${backend})`,
    async () => new SqlRefreshTokenStore(await reset()),
  );
  oneTimeTokenStoreContract(
    `SqlOneTimeTokenStore (${backend})`,
    async () => new SqlOneTimeTokenStore(await reset()),
  );
  throttleStoreContract(`SqlThrottleStore (${backend})`, async () => new SqlThrottleStore(await reset()));
  rateLimitStoreContract(
    `SqlRateLimitStore (${backend})`,
    async (now) => new SqlRateLimitStore(await reset(), { now }),
  );
  idempotencyStoreContract(
    `SqlIdempotencyStore (${backend})`,
    async ({ now, ttlMs }) => new SqlIdempotencyStore(await reset(), { now, ttlMs }),
  );
  mcpSessionStoreContract(
    `SqlMcpSessionStore (${backend})`,
    async (limits, clock) => new SqlMcpSessionStore(await reset(), limits, { now: clock.now }),
  );

  describe(`SqlClient (${backend})`, () => {
    it('answers BIGINT as numbers (above 2^53 too), text[] as arrays, and a multi-statement text with its last result', async () => {
      const db = client();
      const { rows } = await db.query(
        'SELECT $1::bigint AS n, 9007199254740993::bigint AS big, $2::text[] AS list',
        [T0, ['a', 'b']],
      );
      expect(rows).toEqual([{ n: T0, big: 2 ** 53, list: ['a', 'b'] }]);
      expect((await db.query('SELECT 1 AS one; SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      await db.ping();
    });

    it('rethrows a query error unchanged', async () => {
      const error = await rejection(client().query('SELEC 1'));
      expect(error).not.toBeInstanceOf(SvcError);
      expect((error as { code?: string }).code).toBe('42601');
    });

    it('rolls a transaction back when its function throws', async () => {
      const db = await reset();
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO svc_rate_limits (key, count, expires_at) VALUES ('k', 1, 1)`);
          throw new Error('abandon');
        }),
      ).rejects.toThrow('abandon');
      expect((await db.query('SELECT 1 FROM svc_rate_limits')).rowCount).toBe(0);
    });
  });

  describe(`SQL stores beyond the contracts (${backend})`, () => {
    it('SqlUserSource: an id collision is not AUTH_EMAIL_TAKEN; an empty update changes nothing', async () => {
      const { users } = sqlStores(await reset(), { newUserId: () => 'same-id', now: () => T0 });
      const user = await users.create({ email: 'a@example.com' });
      expect(user.id).toBe('same-id');
      const collision = await rejection(users.create({ email: 'b@example.com' }));
      expect(collision).not.toBeInstanceOf(HttpError);
      expect((collision as { code?: string }).code).toBe('23505');
      expect(await users.update(user.id, {})).toEqual(user);
      expect(await users.update('no-such-id', {})).toBeNull();
    });

    it('SqlThrottleStore follows MemoryThrottleStore call by call, a lock outliving its window included', async () => {
      const sql = new SqlThrottleStore(await reset());
      const memory = new MemoryThrottleStore();
      type Step =
        | ['reserve', string, number, number] // key, now, maxAttempts
        | ['refund', string, number, number, number] // key, now, maxAttempts, windowEndsAt
        | ['get', string, number];
      // Window (and lock) 100 ms.
      const steps: Step[] = [
        ['reserve', 'k', 0, 3],
        ['reserve', 'k', 10, 3],
        ['reserve', 'k', 20, 3], // locked until 120; the window ends at 100
        ['reserve', 'k', 50, 3], // refused
        ['get', 'k', 50],
        ['reserve', 'k', 100, 3], // refused: the lock outlives the window
        ['get', 'k', 119],
        ['get', 'k', 120],
        ['reserve', 'k', 120, 3], // a new window, without the ended lock
        ['reserve', 'k', 130, 3],
        ['reserve', 'k', 140, 3], // the limit again: locked until 240
        ['refund', 'k', 150, 3, 220], // back under the limit: the lock goes
        ['get', 'k', 150],
        ['reserve', 'k', 160, 3], // the limit again: locked until 260
        ['refund', 'k', 170, 3, 100], // a window that is over: nothing
        ['refund', 'k', 170, 2, 220], // still at the limit of 2: the lock stays
        ['get', 'k', 170],
        ['get', 'k', 259],
        ['get', 'k', 260],
        ['reserve', 'once', 0, 1], // maxAttempts 1: the first reservation locks
        ['reserve', 'once', 50, 1], // refused while locked
        ['refund', 'once', 60, 1, 100],
        ['reserve', 'once', 70, 1],
      ];
      for (const step of steps) {
        const [expected, actual] =
          step[0] === 'get'
            ? [await memory.get(step[1], step[2]), await sql.get(step[1], step[2])]
            : step[0] === 'reserve'
              ? [
                  await memory.reserve(step[1], { windowMs: 100, maxAttempts: step[3], now: step[2] }),
                  await sql.reserve(step[1], { windowMs: 100, maxAttempts: step[3], now: step[2] }),
                ]
              : [
                  await memory.refund(step[1], { windowEndsAt: step[4], maxAttempts: step[3], now: step[2] }),
                  await sql.refund(step[1], { windowEndsAt: step[4], maxAttempts: step[3], now: step[2] }),
                ];
        expect(actual, step.join(' ')).toStrictEqual(expected);
        expect(await sql.get(step[1], step[2]), `${step.join(' ')}: entry`).toStrictEqual(
          await memory.get(step[1], step[2]),
        );
      }
    });

    it('SqlOneTimeTokenStore: a token created already used can never be consumed', async () => {
      const store = new SqlOneTimeTokenStore(await reset());
      const record = { userId: 'u', email: 'u@example.com', createdAt: T0, expiresAt: T0 + 1000 };
      await store.create('t', { ...record, purpose: 'verify-email', usedAt: T0 });
      expect(await store.consume('t', 'verify-email', T0 + 1)).toBeUndefined();
    });

    it('SqlIdempotencyStore: an expired completed key, reserved again, is pending and forgets its old response', async () => {
      const clock = fakeClock(T0);
      const store = new SqlIdempotencyStore(await reset(), { now: clock.now, ttlMs: 10 });
      await store.setPending('k');
      await store.complete('k', { status: 200, body: 'old', contentType: 'text/plain' });
      clock.advance(10);
      expect(await store.setPending('k')).toBe(true);
      expect(await store.get('k')).toBe('pending');
      await store.complete('k', { status: 204, body: '' });
      expect(await store.get('k')).toStrictEqual({ status: 204, body: '' });
    });

    describe('SqlRefreshTokenStore revocation marks', () => {
      const token = (userId: string, familyId: string, createdAt: number): RefreshTokenRecord => ({
        userId,
        familyId,
        amr: [],
        createdAt,
        expiresAt: createdAt + 50,
      });

      it('a user mark revokes a token dated at its very instant, not one dated after', async () => {
        const store = new SqlRefreshTokenStore(await reset());
        await store.revokeUser('alice', T0 + 10);
        await store.create('at', token('alice', 'f1', T0 + 10));
        await store.create('after', token('alice', 'f2', T0 + 11));
        expect((await store.get('at', T0 + 12))?.revokedAt).toBe(T0 + 10);
        expect((await store.get('after', T0 + 12))?.revokedAt).toBeUndefined();
      });

      it('a family mark ends at its expiry; a live mark keeps its time and is stretched, an ended one is replaced', async () => {
        const store = new SqlRefreshTokenStore(await reset());
        await store.revokeFamily('f', T0 + 10, T0 + 100);
        await store.create('at-end', token('u', 'f', T0 + 100));
        expect((await store.get('at-end', T0 + 101))?.revokedAt).toBeUndefined();
        // The mark ended at T0 + 100: a new revocation dates it anew (and lasts until T0 + 300).
        await store.revokeFamily('f', T0 + 200, T0 + 300);
        await store.create('replaced', token('u', 'f', T0 + 250));
        expect((await store.get('replaced', T0 + 251))?.revokedAt).toBe(T0 + 200);
        // The mark is live: it keeps T0 + 200 and now lasts until T0 + 400.
        await store.revokeFamily('f', T0 + 260, T0 + 400);
        await store.create('stretched', token('u', 'f', T0 + 350));
        expect((await store.get('stretched', T0 + 351))?.revokedAt).toBe(T0 + 200);
      });
    });
  });

  describe(`sweepExpired (${backend})`, () => {
    it('deletes the rows expired at `now` from every table and keeps the live ones', async () => {
      const db = await reset();
      const clock = { time: T0 };
      const stores = sqlStores(db, { now: () => clock.time });
      for (const [name, expiresAt] of [
        ['gone', T0 - 1],
        ['edge', T0],
        ['live', T0 + 1],
      ] as const) {
        await stores.sessions.create(name, { userId: 'u', amr: ['pwd'], createdAt: T0 - 10, expiresAt });
        await stores.refreshTokens.create(name, {
          userId: 'u',
          familyId: name,
          amr: [],
          createdAt: T0 - 10,
          expiresAt,
        });
        await stores.refreshTokens.revokeFamily(name, T0 - 5, expiresAt);
        await stores.oneTimeTokens.create(name, {
          purpose: 'verify-email',
          userId: 'u',
          email: 'u@example.com',
          createdAt: T0 - 10,
          expiresAt,
        });
        await stores.throttle.reserve(name, {
          windowMs: expiresAt - (T0 - 10),
          maxAttempts: 5,
          now: T0 - 10,
        });
        clock.time = T0 - 10;
        await stores.rateLimit.hit(name, expiresAt - clock.time, 5);
      }
      const idempotency = stores.idempotency(11);
      clock.time = T0 - 12;
      await idempotency.setPending('gone');
      clock.time = T0 - 11;
      await idempotency.setPending('edge');
      clock.time = T0 - 10;
      await idempotency.complete('live', { status: 200, body: 'ok' });
      const mcpSessions = stores.mcpSessions({ ttlMs: 11, maxSessions: 10 });
      for (const [id, openedAt] of [
        ['gone', T0 - 12],
        ['edge', T0 - 11],
        ['live', T0 - 10],
      ] as const) {
        clock.time = openedAt;
        await mcpSessions.open({ id, caller: 'c', protocolVersion: '2025-06-18' });
      }

      const deleted = await sweepExpired(db, T0);
      expect(deleted).toEqual({
        svc_sessions: 2,
        svc_refresh_tokens: 2,
        svc_refresh_families: 2,
        svc_one_time_tokens: 2,
        svc_login_throttle: 2,
        svc_rate_limits: 2,
        svc_idempotency: 2,
        svc_mcp_sessions: 2,
        svc_webauthn_challenges: 0,
        svc_api_keys: 0,
        svc_file_reservations: 0,
      });
      for (const [table, column] of Object.entries(KEY_COLUMNS)) {
        const { rows } = await db.query<{ id: string }>(`SELECT ${column} AS id FROM ${table}`);
        expect(
          rows.map((row) => row.id),
          table,
        ).toEqual(['live']);
      }
      expect(await sweepExpired(db, T0)).toMatchObject({ svc_sessions: 0, svc_idempotency: 0 });
    });
  });
}
