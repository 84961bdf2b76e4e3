// Every store contract against the SQL stores, for one backend (PGlite or PostgreSQL). `client` gives the
// file's migrated client; each contract test starts from empty svc_ tables.
import type { AuthUser } from 'svckit';
import {
  SqlIdempotencyStore,
  SqlOneTimeTokenStore,
  SqlRateLimitStore,
  SqlRefreshTokenStore,
  SqlSessionStore,
  SqlThrottleStore,
  SqlUserSource,
  type SqlClient,
} from '../../../runtime/stores/sql/index.js';
import { idempotencyStoreContract } from './idempotency-store.js';
import { oneTimeTokenStoreContract } from './one-time-token-store.js';
import { rateLimitStoreContract } from './rate-limit-store.js';
import { refreshTokenStoreContract } from './refresh-token-store.js';
import { sessionStoreContract } from './session-store.js';
import { throttleStoreContract } from './throttle-store.js';
import { userSourceContract } from './user-source.js';

const T0 = 1_700_000_000_000;

/** Empties the svc_ tables. The ambiguity test drops the email index to hold rows differing in case; it comes back. */
export async function resetSqlTables(client: SqlClient): Promise<SqlClient> {
  await client.query(`
    TRUNCATE svc_users, svc_sessions, svc_refresh_tokens, svc_refresh_families, svc_refresh_users,
      svc_one_time_tokens, svc_login_throttle, svc_rate_limits, svc_idempotency;
    CREATE UNIQUE INDEX IF NOT EXISTS svc_users_email_key ON svc_users (lower(email));
  `);
  return client;
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
}
