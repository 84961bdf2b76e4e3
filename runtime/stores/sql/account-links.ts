// AccountLinkStore on svc_account_links. The primary key (provider, subject) links a pair once: an insert that
// loses the race changes nothing (ON CONFLICT DO NOTHING). Linking and removing are one transaction behind a
// transaction-scoped advisory lock of the user: a link refused for a user holding the provider already, and a
// removal refused for a user's last link, each read what the previous one of that user committed, on any
// number of processes. Lookups and removing a user's every link are one statement.
import type {
  AccountLink,
  AccountLinkResult,
  AccountLinkStore,
  AccountUnlinkResult,
} from '../../auth/stores/account-links.js';
import type { SqlClient } from './client.js';

/** Columns named as the link's fields. */
const LINK = `provider, subject, user_id AS "userId", created_at AS "createdAt"`;

// Changes of one user's links queue on a lock of that user.
const LOCK_USER = `SELECT pg_advisory_xact_lock(hashtextextended('svc:account-links-user:' || $1::text, 0))`;

const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED';

const HOLDS_PROVIDER = `SELECT 1 FROM svc_account_links WHERE user_id = $1 AND provider = $2 LIMIT 1`;

const INSERT = `INSERT INTO svc_account_links (provider, subject, user_id, created_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (provider, subject) DO NOTHING`;

const FIND = `SELECT ${LINK} FROM svc_account_links WHERE provider = $1 AND subject = $2`;

// Served by svc_account_links_user_id in this order.
const LIST_BY_USER = `SELECT ${LINK} FROM svc_account_links WHERE user_id = $1 ORDER BY created_at, provider, subject`;

const COUNT_BY_USER = `SELECT count(*)::int AS count FROM svc_account_links WHERE user_id = $1`;

const HOLDS_PAIR = `SELECT 1 FROM svc_account_links WHERE provider = $1 AND subject = $2 AND user_id = $3`;

const REMOVE = `DELETE FROM svc_account_links WHERE provider = $1 AND subject = $2 AND user_id = $3`;

const REMOVE_BY_USER = `DELETE FROM svc_account_links WHERE user_id = $1`;

export class SqlAccountLinkStore implements AccountLinkStore {
  constructor(private readonly db: SqlClient) {}

  async link(link: AccountLink, options: { onePerProvider?: boolean } = {}): Promise<AccountLinkResult> {
    const values = [link.provider, link.subject, link.userId, link.createdAt];
    return this.db.transaction(async (tx) => {
      // Under a REPEATABLE READ default the check would read a snapshot older than the lock wait.
      await tx.query(READ_COMMITTED);
      await tx.query(LOCK_USER, [link.userId]);
      // A linked pair is reported as taken whatever the user holds, as in memory.
      if ((await tx.query(FIND, [link.provider, link.subject])).rows.length > 0) return 'taken';
      if (
        options.onePerProvider === true &&
        (await tx.query(HOLDS_PROVIDER, [link.userId, link.provider])).rows.length > 0
      ) {
        return 'provider_linked';
      }
      // ON CONFLICT: a link of the same pair to another user may commit meanwhile (it holds another lock).
      return (await tx.query(INSERT, values)).rowCount === 1 ? 'linked' : 'taken';
    });
  }

  async find(provider: string, subject: string): Promise<AccountLink | undefined> {
    const { rows } = await this.db.query<AccountLink>(FIND, [provider, subject]);
    return rows[0];
  }

  async listByUser(userId: string): Promise<AccountLink[]> {
    const { rows } = await this.db.query<AccountLink>(LIST_BY_USER, [userId]);
    return rows;
  }

  async remove(
    userId: string,
    provider: string,
    subject: string,
    options: { keepOne?: boolean } = {},
  ): Promise<AccountUnlinkResult> {
    if (options.keepOne !== true) {
      const { rowCount } = await this.db.query(REMOVE, [provider, subject, userId]);
      return rowCount === 1 ? 'removed' : 'not_found';
    }
    return this.db.transaction(async (tx) => {
      await tx.query(READ_COMMITTED);
      await tx.query(LOCK_USER, [userId]);
      if ((await tx.query(HOLDS_PAIR, [provider, subject, userId])).rows.length === 0) return 'not_found';
      const { rows } = await tx.query<{ count: number }>(COUNT_BY_USER, [userId]);
      if (rows[0]!.count <= 1) return 'last';
      return (await tx.query(REMOVE, [provider, subject, userId])).rowCount === 1 ? 'removed' : 'not_found';
    });
  }

  async removeByUser(userId: string): Promise<number> {
    const { rowCount } = await this.db.query(REMOVE_BY_USER, [userId]);
    return rowCount;
  }
}
