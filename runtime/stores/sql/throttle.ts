// ThrottleStore on svc_login_throttle. `reserve` decides and counts in one
// INSERT … ON CONFLICT DO UPDATE … WHERE: concurrent reservations for one key queue on its row lock and each
// sees the row as the previous one left it, so no more than maxAttempts are ever granted per window, on any
// number of processes. `refund` is one conditional UPDATE.
import type {
  ThrottleEntry,
  ThrottleRefund,
  ThrottleReservation,
  ThrottleReserved,
  ThrottleStore,
} from '../../auth/throttle/store.js';
import type { SqlQueryable } from './client.js';
import { recordOf, type RowOf } from './rows.js';

/** The columns of a ThrottleEntry, named as its fields (rows.ts). */
const ENTRY = 'count, window_ends_at AS "windowEndsAt", locked_until AS "lockedUntil"';

const GET = `SELECT ${ENTRY} FROM svc_login_throttle WHERE key = $1 AND expires_at > $2`;

// $2 now, $3 windowMs, $4 maxAttempts. A new key (or one swept away) starts a window with this reservation.
// An existing row is updated only when the reservation is granted (the WHERE): no lock holds, and the window
// ended (it starts over at 1) or has room left (count + 1). Every SET expression reads the row as it was; the
// reservation that reaches maxAttempts locks the key for a window, any other leaves no lock (one that ended
// goes). A refused reservation updates nothing and returns no row.
const RESERVE = `
INSERT INTO svc_login_throttle AS t (key, count, window_ends_at, locked_until)
VALUES ($1, 1, $2::bigint + $3::bigint, CASE WHEN 1 >= $4::integer THEN $2::bigint + $3::bigint END)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN t.window_ends_at <= $2 THEN 1 ELSE t.count + 1 END,
  window_ends_at = CASE WHEN t.window_ends_at <= $2 THEN $2 + $3 ELSE t.window_ends_at END,
  locked_until = CASE WHEN (CASE WHEN t.window_ends_at <= $2 THEN 1 ELSE t.count + 1 END) >= $4 THEN $2 + $3 END
WHERE COALESCE(t.locked_until, 0) <= $2 AND (t.window_ends_at <= $2 OR t.count < $4)
RETURNING ${ENTRY}`;

// $2 the window the reservation was granted in, $3 maxAttempts, $4 now. SET reads the row as it was: the lock
// goes once the count is back under the limit.
const REFUND = `
UPDATE svc_login_throttle SET
  count = GREATEST(count - 1, 0),
  locked_until = CASE WHEN count - 1 < $3::integer THEN NULL ELSE locked_until END
WHERE key = $1 AND window_ends_at = $2::bigint AND expires_at > $4::bigint`;

export class SqlThrottleStore implements ThrottleStore {
  constructor(private readonly db: SqlQueryable) {}

  async get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const { rows } = await this.db.query<RowOf<ThrottleEntry>>(GET, [key, now]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async reserve(key: string, { windowMs, maxAttempts, now }: ThrottleReservation): Promise<ThrottleReserved> {
    const { rows } = await this.db.query<RowOf<ThrottleEntry>>(RESERVE, [key, now, windowMs, maxAttempts]);
    if (rows[0] !== undefined) return { granted: true, entry: recordOf(rows[0]) };
    // Refused; the entry is read only to tell the caller until when (it may have gone meanwhile).
    return { granted: false, entry: await this.get(key, now) };
  }

  async refund(key: string, { windowEndsAt, maxAttempts, now }: ThrottleRefund): Promise<void> {
    await this.db.query(REFUND, [key, windowEndsAt, maxAttempts, now]);
  }

  async clear(key: string): Promise<void> {
    await this.db.query('DELETE FROM svc_login_throttle WHERE key = $1', [key]);
  }
}
