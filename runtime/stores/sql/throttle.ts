// ThrottleStore on svc_login_throttle (seed 000 "Limits"): `hit` is one INSERT … ON CONFLICT DO UPDATE, so
// concurrent failures for one key queue on its row and each counts exactly once.
import type { ThrottleEntry, ThrottleHit, ThrottleStore } from '../../auth/throttle/store.js';
import type { SqlQueryable } from './client.js';
import { recordOf, type RowOf } from './rows.js';

/** The columns of a ThrottleEntry, named as its fields (rows.ts). */
const ENTRY = 'count, window_ends_at AS "windowEndsAt", locked_until AS "lockedUntil"';

const GET = `SELECT ${ENTRY} FROM svc_login_throttle WHERE key = $1 AND expires_at > $2`;

// $2 now, $3 windowMs, $4 maxAttempts. Every SET expression reads the row as it was before this hit:
// - a window that ended starts over at 1, else the count goes up by one;
// - a running lock stays; the hit that reaches maxAttempts locks for a window; an entry whose window and lock
//   are both over starts afresh without a lock; otherwise an ended lock is kept as it was (as the memory store).
const HIT = `
INSERT INTO svc_login_throttle AS t (key, count, window_ends_at, locked_until)
VALUES ($1, 1, $2::bigint + $3::bigint, CASE WHEN 1 >= $4::integer THEN $2::bigint + $3::bigint END)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN t.window_ends_at <= $2 THEN 1 ELSE t.count + 1 END,
  window_ends_at = CASE WHEN t.window_ends_at <= $2 THEN $2 + $3 ELSE t.window_ends_at END,
  locked_until = CASE
    WHEN t.locked_until > $2 THEN t.locked_until
    WHEN (CASE WHEN t.window_ends_at <= $2 THEN 1 ELSE t.count + 1 END) >= $4 THEN $2 + $3
    WHEN t.expires_at <= $2 THEN NULL
    ELSE t.locked_until
  END
RETURNING ${ENTRY}`;

export class SqlThrottleStore implements ThrottleStore {
  constructor(private readonly db: SqlQueryable) {}

  async get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const { rows } = await this.db.query<RowOf<ThrottleEntry>>(GET, [key, now]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async hit(key: string, { windowMs, maxAttempts, now }: ThrottleHit): Promise<ThrottleEntry> {
    const { rows } = await this.db.query<RowOf<ThrottleEntry>>(HIT, [key, now, windowMs, maxAttempts]);
    if (rows[0] === undefined) throw new Error('SqlThrottleStore: the upsert returned no row');
    return recordOf(rows[0]);
  }

  async clear(key: string): Promise<void> {
    await this.db.query('DELETE FROM svc_login_throttle WHERE key = $1', [key]);
  }
}
