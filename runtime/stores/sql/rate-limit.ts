// RateLimitStore on svc_rate_limits: fixed windows, one INSERT … ON CONFLICT DO UPDATE per
// hit or lease, so every instance counts into the same bucket and concurrent hits each count once. Time comes from the
// store's clock, never the database's.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { RateLimitHit, RateLimitLease, RateLimitStore } from '../../edge/rate-limit/store.js';
import type { SqlQueryable } from './client.js';

export interface SqlRateLimitStoreOptions {
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of SqlRateLimitStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<SqlRateLimitStoreOptions>({ now: true });

// $2 now, $3 windowMs. A running window counts on and keeps its end; an ended one starts over at 1.
const HIT = `
INSERT INTO svc_rate_limits AS b (key, count, expires_at) VALUES ($1, 1, $2::bigint + $3::bigint)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN b.expires_at > $2 THEN b.count + 1 ELSE 1 END,
  expires_at = CASE WHEN b.expires_at > $2 THEN b.expires_at ELSE $2 + $3 END
RETURNING count, expires_at AS "resetAt"`;

// $2 now, $3 windowMs, $4 limit, $5 want. The row counts every hit asked for: a running window adds `want`, an
// ended one starts over at `want`. So the count before this lease is always `count - want`, even when a
// concurrent first lease inserted the row, and the grant, min(want, max(0, limit - before)), is read from the
// updated row alone (PostgreSQL 15 cannot return the old row). The grants are those of a count capped at the
// limit: once a lease is cut short, every later one in the window gets 0 either way.
const LEASE = `
INSERT INTO svc_rate_limits AS b (key, count, expires_at) VALUES ($1, $5, $2::bigint + $3::bigint)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN b.expires_at > $2 THEN b.count + $5 ELSE $5 END,
  expires_at = CASE WHEN b.expires_at > $2 THEN b.expires_at ELSE $2 + $3 END
RETURNING LEAST($5::bigint, GREATEST(0, $4::bigint - (count - $5::bigint))) AS granted,
  LEAST(count, $4::bigint) AS count, expires_at AS "resetAt"`;

export class SqlRateLimitStore implements RateLimitStore {
  private readonly now: () => number;

  constructor(
    private readonly db: SqlQueryable,
    options: SqlRateLimitStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'SqlRateLimitStore');
    this.now = options.now ?? Date.now;
  }

  /** `limit` is unused: the table is not bounded, so no bucket is ever evicted. */
  async hit(key: string, windowMs: number, _limit: number): Promise<RateLimitHit> {
    const { rows } = await this.db.query<RateLimitHit>(HIT, [key, this.now(), windowMs]);
    if (rows[0] === undefined) throw new Error('SqlRateLimitStore: the upsert returned no row');
    return rows[0];
  }

  async lease(key: string, windowMs: number, limit: number, want: number): Promise<RateLimitLease> {
    const { rows } = await this.db.query<RateLimitLease>(LEASE, [key, this.now(), windowMs, limit, want]);
    const row = rows[0];
    if (row === undefined) throw new Error('SqlRateLimitStore: the lease upsert returned no row');
    return { granted: Number(row.granted), count: Number(row.count), resetAt: Number(row.resetAt) };
  }
}
