// The in-memory account-link store: links live as long as the process and are known to it alone
// (docs/stores.md). Never evicted: a lost link would leave its owner to the email rules on the next sign-in.
// Each operation is synchronous up to its answer, so check-and-insert and count-and-delete are atomic in one
// process.
import type {
  AccountLink,
  AccountLinkResult,
  AccountLinkStore,
  AccountUnlinkResult,
} from './account-links.js';

/** One key per pair; JSON keeps any provider or subject from spelling another pair's key. */
function pairKey(provider: string, subject: string): string {
  return JSON.stringify([provider, subject]);
}

function byAge(a: AccountLink, b: AccountLink): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.provider !== b.provider) return a.provider < b.provider ? -1 : 1;
  return a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0;
}

export class MemoryAccountLinkStore implements AccountLinkStore {
  private readonly byPair = new Map<string, AccountLink>();
  /** userId → the keys of its links. */
  private readonly pairsByUser = new Map<string, Set<string>>();

  /** Links currently held. */
  get size(): number {
    return this.byPair.size;
  }

  async link(link: AccountLink, options: { onePerProvider?: boolean } = {}): Promise<AccountLinkResult> {
    const key = pairKey(link.provider, link.subject);
    if (this.byPair.has(key)) return 'taken';
    if (
      options.onePerProvider === true &&
      this.userLinks(link.userId).some((held) => held.provider === link.provider)
    ) {
      return 'provider_linked';
    }
    this.byPair.set(key, { ...link });
    const keys = this.pairsByUser.get(link.userId) ?? new Set<string>();
    keys.add(key);
    this.pairsByUser.set(link.userId, keys);
    return 'linked';
  }

  async find(provider: string, subject: string): Promise<AccountLink | undefined> {
    const link = this.byPair.get(pairKey(provider, subject));
    return link === undefined ? undefined : { ...link };
  }

  async listByUser(userId: string): Promise<AccountLink[]> {
    return this.userLinks(userId)
      .sort(byAge)
      .map((link) => ({ ...link }));
  }

  async remove(
    userId: string,
    provider: string,
    subject: string,
    options: { keepOne?: boolean } = {},
  ): Promise<AccountUnlinkResult> {
    const key = pairKey(provider, subject);
    const keys = this.pairsByUser.get(userId);
    if (keys === undefined || !keys.has(key)) return 'not_found';
    if (options.keepOne === true && keys.size <= 1) return 'last';
    this.byPair.delete(key);
    keys.delete(key);
    if (keys.size === 0) this.pairsByUser.delete(userId);
    return 'removed';
  }

  async removeByUser(userId: string): Promise<number> {
    const keys = this.pairsByUser.get(userId);
    if (keys === undefined) return 0;
    for (const key of keys) this.byPair.delete(key);
    this.pairsByUser.delete(userId);
    return keys.size;
  }

  private userLinks(userId: string): AccountLink[] {
    const keys = this.pairsByUser.get(userId) ?? new Set<string>();
    return [...keys].flatMap((key) => this.byPair.get(key) ?? []);
  }
}
