// The login-throttle store contract (seed 000 "Stores": login throttle store). One counter per key (an email
// or an IP under the throttle's namespace); `hit` counts a failure and locks the key in one atomic step, so a
// shared backend (SQL, Redis) can implement it as one conditional write.

export interface ThrottleEntry {
  /** Failures counted in the current window. */
  count: number;
  /** When the current window ends and the count starts over (unix ms). */
  windowEndsAt: number;
  /** Set once the count reached the limit: the key is refused until then (unix ms). */
  lockedUntil?: number;
}

export interface ThrottleHit {
  /** Length of a counting window, and of a lock, in ms. */
  windowMs: number;
  /** The failure that reaches this count locks the key. */
  maxAttempts: number;
  /** The caller's clock (unix ms), so every store counts in the same time. */
  now: number;
}

export interface ThrottleStore {
  /** The key's entry, or undefined when it has none or its window and lock are over. */
  get(key: string, now: number): Promise<ThrottleEntry | undefined>;
  /**
   * Counts one failure: starts a window when there is none (or it ended), adds one, and locks the key for
   * `windowMs` when the count reaches `maxAttempts`. Atomic per key. Returns the entry after the hit.
   */
  hit(key: string, hit: ThrottleHit): Promise<ThrottleEntry>;
  /** Forgets the key (a successful sign-in clears the account's counter). */
  clear(key: string): Promise<void>;
}

/** Whether the entry refuses sign-ins at `now`. */
export function isLocked(entry: ThrottleEntry | undefined, now: number): boolean {
  return entry?.lockedUntil !== undefined && entry.lockedUntil > now;
}

/** When an entry stops mattering: its window ended and no lock holds. */
export function entryExpiresAt(entry: ThrottleEntry): number {
  return Math.max(entry.windowEndsAt, entry.lockedUntil ?? 0);
}
