// IdempotencyStore on svc_idempotency: a key lives `ttlMs` from its last write
// (reservation or completion), as in the memory store. Time comes from the store's clock.
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../idempotency/memory-store.js';
import type { IdempotencyRecord, IdempotencyStore } from '../../idempotency/store.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { SqlQueryable } from './client.js';

export interface SqlIdempotencyStoreOptions {
  /** How long a pending or completed key is kept, in ms. Default 86400000 (24 h). */
  ttlMs?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of SqlIdempotencyStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<SqlIdempotencyStoreOptions>({
  ttlMs: true,
  now: true,
});

interface EntryRow {
  status: number | null;
  body: string | null;
  content_type: string | null;
  fingerprint: string | null;
}

export class SqlIdempotencyStore implements IdempotencyStore {
  readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: SqlQueryable,
    options: SqlIdempotencyStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'SqlIdempotencyStore');
    this.ttlMs = positiveWholeNumber(
      options.ttlMs,
      DEFAULT_IDEMPOTENCY_TTL_MS,
      'SqlIdempotencyStore',
      'ttlMs',
    );
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<IdempotencyRecord | 'pending' | undefined> {
    const { rows } = await this.db.query<EntryRow>(
      'SELECT status, body, content_type, fingerprint FROM svc_idempotency WHERE key = $1 AND expires_at > $2',
      [key, this.now()],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    if (row.status === null) return 'pending';
    const record: IdempotencyRecord = { status: row.status, body: row.body ?? '' };
    if (row.content_type !== null) record.contentType = row.content_type;
    if (row.fingerprint !== null) record.fingerprint = row.fingerprint;
    return record;
  }

  // Compare-and-set in one statement: the insert wins on a free key; on a taken one the update applies only
  // when the entry expired. Concurrent callers queue on the row, so exactly one sees a row come back.
  async setPending(key: string): Promise<boolean> {
    const now = this.now();
    const { rowCount } = await this.db.query(
      `INSERT INTO svc_idempotency AS i (key, status, body, content_type, fingerprint, expires_at)
       VALUES ($1, NULL, NULL, NULL, NULL, $2::bigint + $3::bigint)
       ON CONFLICT (key) DO UPDATE SET
         status = NULL, body = NULL, content_type = NULL, fingerprint = NULL, expires_at = excluded.expires_at
       WHERE i.expires_at <= $2
       RETURNING 1`,
      [key, now, this.ttlMs],
    );
    return rowCount === 1;
  }

  async complete(key: string, record: IdempotencyRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO svc_idempotency AS i (key, status, body, content_type, fingerprint, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6::bigint + $7::bigint)
       ON CONFLICT (key) DO UPDATE SET
         status = excluded.status, body = excluded.body, content_type = excluded.content_type,
         fingerprint = excluded.fingerprint, expires_at = excluded.expires_at`,
      [
        key,
        record.status,
        record.body,
        record.contentType ?? null,
        record.fingerprint ?? null,
        this.now(),
        this.ttlMs,
      ],
    );
  }

  async release(key: string): Promise<void> {
    await this.db.query('DELETE FROM svc_idempotency WHERE key = $1', [key]);
  }
}
