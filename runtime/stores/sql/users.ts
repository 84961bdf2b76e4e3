// UserSource on svc_users (seed 000 "User records"). Emails are stored normalised; a unique index on
// lower(email) makes "one account per address" atomic: of concurrent sign-ups, the losers hit the index.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import {
  normalizeEmail,
  type AuthUser,
  type NewUser,
  type PublicUser,
  type UserPatch,
  type UserSource,
} from '../../auth/stores/users.js';
import type { SqlQueryable } from './client.js';
import { sqlState } from './unavailable.js';

export interface SqlUserSourceOptions {
  /** Makes the id of a new user. Default crypto.randomUUID. */
  newId?: () => string;
  /** Recorded as created_at (epoch ms). Default Date.now. */
  now?: () => number;
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  email_verified: boolean;
}

const COLUMNS = 'id, email, password_hash, email_verified';

function toUser(row: UserRow): AuthUser {
  const user: AuthUser = { id: row.id, email: row.email, emailVerified: row.email_verified };
  if (row.password_hash !== null) user.passwordHash = row.password_hash;
  return user;
}

/** A unique violation on the email index (not the primary key) means the address is taken. */
function emailTaken(error: unknown): boolean {
  return sqlState(error) === '23505' && (error as { constraint?: unknown }).constraint !== 'svc_users_pkey';
}

export class SqlUserSource implements UserSource {
  private readonly newId: () => string;
  private readonly now: () => number;

  constructor(
    private readonly db: SqlQueryable,
    options: SqlUserSourceOptions = {},
  ) {
    this.newId = options.newId ?? randomUUID;
    this.now = options.now ?? Date.now;
  }

  async findByEmail(email: string): Promise<AuthUser | null> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${COLUMNS} FROM svc_users WHERE lower(email) = lower($1) LIMIT 2`,
      [normalizeEmail(email)],
    );
    // Only rows written before the unique index (or by hand) can differ in case alone.
    if (rows.length > 1) throw errors.AUTH_EMAIL_AMBIGUOUS();
    return rows[0] === undefined ? null : toUser(rows[0]);
  }

  async findById(id: string): Promise<AuthUser | null> {
    const { rows } = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM svc_users WHERE id = $1`, [id]);
    return rows[0] === undefined ? null : toUser(rows[0]);
  }

  async create(user: NewUser): Promise<AuthUser> {
    // NOT EXISTS refuses a taken address even where the unique index is missing; the index decides races.
    try {
      const { rows } = await this.db.query<UserRow>(
        `INSERT INTO svc_users (id, email, password_hash, email_verified, created_at)
         SELECT $1::text, $2::text, $3::text, $4::boolean, $5::bigint
         WHERE NOT EXISTS (SELECT 1 FROM svc_users WHERE lower(email) = lower($2))
         RETURNING ${COLUMNS}`,
        [
          this.newId(),
          normalizeEmail(user.email),
          user.passwordHash ?? null,
          user.emailVerified ?? false,
          this.now(),
        ],
      );
      if (rows[0] === undefined) throw errors.AUTH_EMAIL_TAKEN();
      return toUser(rows[0]);
    } catch (error) {
      throw emailTaken(error) ? errors.AUTH_EMAIL_TAKEN() : error;
    }
  }

  async update(id: string, patch: UserPatch): Promise<AuthUser | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const email = patch.email === undefined ? undefined : normalizeEmail(patch.email);
    if (email !== undefined) sets.push(`email = $${params.push(email)}`);
    if (patch.passwordHash !== undefined) sets.push(`password_hash = $${params.push(patch.passwordHash)}`);
    if (patch.emailVerified !== undefined) sets.push(`email_verified = $${params.push(patch.emailVerified)}`);
    if (sets.length === 0) return this.findById(id);
    const free =
      email === undefined
        ? ''
        : ' AND NOT EXISTS (SELECT 1 FROM svc_users WHERE lower(email) = lower($2) AND id <> $1)';
    let rows: UserRow[];
    try {
      ({ rows } = await this.db.query<UserRow>(
        `UPDATE svc_users SET ${sets.join(', ')} WHERE id = $1${free} RETURNING ${COLUMNS}`,
        params,
      ));
    } catch (error) {
      throw emailTaken(error) ? errors.AUTH_EMAIL_TAKEN() : error;
    }
    if (rows[0] !== undefined) return toUser(rows[0]);
    // No row changed: an unknown id, or (with a new email) an address another row holds.
    if (email !== undefined && (await this.findById(id)) !== null) throw errors.AUTH_EMAIL_TAKEN();
    return null;
  }

  async findByIds(ids: readonly string[]): Promise<PublicUser[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${COLUMNS} FROM svc_users WHERE id = ANY($1::text[])`,
      [unique],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return unique.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined ? [] : [{ id: row.id, email: row.email, emailVerified: row.email_verified }];
    });
  }
}
