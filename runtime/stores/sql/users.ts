// UserSource on svc_users. Emails are stored normalised; a unique index on
// lower(email) makes "one account per address" atomic: of concurrent sign-ups, the losers hit the index.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import {
  normalizeEmail,
  publicUser,
  type AuthUser,
  type NewUser,
  type PublicUser,
  type UserPatch,
  type UserSource,
} from '../../auth/stores/users.js';
import type { SqlQueryable, SqlResult } from './client.js';
import { recordOf, type RowOf } from './rows.js';
import { sqlState } from './unavailable.js';

export interface SqlUserSourceOptions {
  /** Makes the id of a new user. Default crypto.randomUUID. */
  newId?: () => string;
  /** Recorded as created_at (epoch ms). Default Date.now. */
  now?: () => number;
}

/** The keys of SqlUserSourceOptions; any other is refused. */
const USER_SOURCE_OPTIONS = optionKeys<SqlUserSourceOptions>({
  newId: true,
  now: true,
});

type UserRow = RowOf<AuthUser>;

/** The columns of an AuthUser, named as its fields (rows.ts). */
const COLUMNS = 'id, email, password_hash AS "passwordHash", email_verified AS "emailVerified"';

const FIND_BY_EMAIL = `SELECT ${COLUMNS} FROM svc_users WHERE lower(email) = lower($1) LIMIT 2`;
const FIND_BY_ID = `SELECT ${COLUMNS} FROM svc_users WHERE id = $1`;
const FIND_BY_IDS = `SELECT ${COLUMNS} FROM svc_users WHERE id = ANY($1::text[])`;

// NOT EXISTS refuses a taken address even where the unique index is missing; the index decides races.
const CREATE = `INSERT INTO svc_users (id, email, password_hash, email_verified, created_at)
  SELECT $1::text, $2::text, $3::text, $4::boolean, $5::bigint
  WHERE NOT EXISTS (SELECT 1 FROM svc_users WHERE lower(email) = lower($2))
  RETURNING ${COLUMNS}`;

// A NULL parameter leaves its column as it is ($5 true removes the password); a new email ($2) must be free of
// every other row.
const UPDATE = `UPDATE svc_users SET
    email = COALESCE($2::text, email),
    password_hash = CASE WHEN $5::boolean THEN NULL ELSE COALESCE($3::text, password_hash) END,
    email_verified = COALESCE($4::boolean, email_verified)
  WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM svc_users WHERE lower(email) = lower($2::text) AND id <> $1)
  RETURNING ${COLUMNS}`;

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
    rejectUnknownOptions(options, USER_SOURCE_OPTIONS, 'SqlUserSource');
    this.newId = options.newId ?? randomUUID;
    this.now = options.now ?? Date.now;
  }

  async findByEmail(email: string): Promise<AuthUser | null> {
    const { rows } = await this.db.query<UserRow>(FIND_BY_EMAIL, [normalizeEmail(email)]);
    // Only rows written before the unique index (or by hand) can differ in case alone.
    if (rows.length > 1) throw errors.AUTH_EMAIL_AMBIGUOUS();
    return rows[0] === undefined ? null : recordOf(rows[0]);
  }

  async findById(id: string): Promise<AuthUser | null> {
    const { rows } = await this.db.query<UserRow>(FIND_BY_ID, [id]);
    return rows[0] === undefined ? null : recordOf(rows[0]);
  }

  async create(user: NewUser): Promise<AuthUser> {
    const { rows } = await this.write(CREATE, [
      this.newId(),
      normalizeEmail(user.email),
      user.passwordHash ?? null,
      user.emailVerified ?? false,
      this.now(),
    ]);
    if (rows[0] === undefined) throw errors.AUTH_EMAIL_TAKEN();
    return recordOf(rows[0]);
  }

  async update(id: string, patch: UserPatch): Promise<AuthUser | null> {
    const { email, passwordHash, emailVerified } = patch;
    if (email === undefined && passwordHash === undefined && emailVerified === undefined) {
      return this.findById(id);
    }
    const { rows } = await this.write(UPDATE, [
      id,
      email === undefined ? null : normalizeEmail(email),
      passwordHash ?? null,
      emailVerified ?? null,
      passwordHash === null,
    ]);
    if (rows[0] !== undefined) return recordOf(rows[0]);
    // No row changed: an unknown id, or (with a new email) an address another row holds.
    if (email !== undefined && (await this.findById(id)) !== null) throw errors.AUTH_EMAIL_TAKEN();
    return null;
  }

  async findByIds(ids: readonly string[]): Promise<PublicUser[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const { rows } = await this.db.query<UserRow>(FIND_BY_IDS, [unique]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return unique.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined ? [] : [publicUser(row)];
    });
  }

  /** An INSERT or UPDATE whose unique violation on the email index is AUTH_EMAIL_TAKEN. */
  private async write(text: string, params: readonly unknown[]): Promise<SqlResult<UserRow>> {
    try {
      return await this.db.query<UserRow>(text, params);
    } catch (error) {
      throw emailTaken(error) ? errors.AUTH_EMAIL_TAKEN() : error;
    }
  }
}
