// The account-link store contract (docs/stores.md, "Account links"): which account a provider's person
// (provider and subject) signs in to. Every step that must happen once is one atomic operation in every
// implementation (one SQL transaction behind a per-user advisory lock, one synchronous map update in memory),
// never a read followed by a separate write: a pair is linked once, to one account, however many first
// sign-ins race; and a user's last link is never removed by two removals racing each other.
// Durable data: a link never expires and is never evicted (losing one would sign its owner in to whichever
// account holds the email next time), so it lives in the database whenever one is configured, never in Redis.

/** One provider identity linked to one account. */
export interface AccountLink {
  /** The provider's configured name (`google`, `github`, …). */
  provider: string;
  /** The provider's stable id of the person. */
  subject: string;
  userId: string;
  /** Unix ms. */
  createdAt: number;
}

/**
 * What `link` did: `linked`; `taken`, the pair is linked already (to this account or another: `find` says
 * which); `provider_linked`, refused by `onePerProvider` because the user holds another subject of the
 * provider. Nothing changes unless `linked`.
 */
export type AccountLinkResult = 'linked' | 'taken' | 'provider_linked';

/** What `remove` did: `removed`; `not_found`, no such link of this user; `last`, refused by `keepOne`. */
export type AccountUnlinkResult = 'removed' | 'not_found' | 'last';

export interface AccountLinkStore {
  /**
   * Records `link` unless its pair (provider, subject) is linked already, to any account ('taken'). With
   * `onePerProvider`, also unless the user holds a link of the same provider with another subject
   * ('provider_linked'). The checks and the insert are one step: of concurrent links of one pair exactly one
   * is 'linked', and with `onePerProvider` a user never ends up with two subjects of one provider.
   */
  link(link: AccountLink, options?: { onePerProvider?: boolean }): Promise<AccountLinkResult>;
  /** The link of this pair (a copy), or undefined. Provider and subject match exactly (case included). */
  find(provider: string, subject: string): Promise<AccountLink | undefined>;
  /** The user's links (copies), oldest first (then by provider and subject). */
  listByUser(userId: string): Promise<AccountLink[]>;
  /**
   * Deletes the pair's link only when it belongs to `userId` ('not_found' for another account's or an unknown
   * one). With `keepOne`, refuses ('last') when it is the user's only link; the count and the delete are one
   * step, so of concurrent removals of a user's two links under `keepOne` exactly one succeeds.
   */
  remove(
    userId: string,
    provider: string,
    subject: string,
    options?: { keepOne?: boolean },
  ): Promise<AccountUnlinkResult>;
  /** Deletes every link of the user in one step (an account taken over by its email's owner); how many. */
  removeByUser(userId: string): Promise<number>;
}
