// The login-throttle store contract (docs/auth.md, "Login throttle"). One counter per key (an email
// or an IP under the throttle's namespace). A sign-in reserves its attempt before any password is hashed:
// `reserve` decides and counts in one atomic step, so however many attempts arrive at once, on one process or
// many, at most `maxAttempts` are granted per window. A shared backend implements it as one conditional write
// (SQL) or one script (Redis), never read-then-write.

export interface ThrottleEntry {
  /** Attempts reserved in the current window and not given back. */
  count: number;
  /** When the current window ends and the count starts over (unix ms). */
  windowEndsAt: number;
  /** Set by the reservation that reached the limit: the key refuses every attempt until then (unix ms). */
  lockedUntil?: number;
}

export interface ThrottleReservation {
  /** Length of a counting window, and of a lock, in ms. */
  windowMs: number;
  /** Attempts granted per window (at least 1); the one that reaches it locks the key. */
  maxAttempts: number;
  /** The caller's clock (unix ms), so every store counts in the same time. */
  now: number;
}

/** What `reserve` decided, with the entry as it stands after the decision. */
export type ThrottleReserved =
  | { granted: true; entry: ThrottleEntry }
  /**
   * Refused: the key is locked, or its window is used up. `entry` says until when; a store that reads it after
   * deciding may find it gone meanwhile (cleared or expired), hence optional.
   */
  | { granted: false; entry: ThrottleEntry | undefined };

export interface ThrottleRefund {
  /** The window the reservation was granted in (its entry's `windowEndsAt`): a later window is not touched. */
  windowEndsAt: number;
  /** The limit the reservation was granted under. */
  maxAttempts: number;
  now: number;
}

export interface ThrottleStore {
  /** The key's entry, or undefined when it has none or its window and lock are over. */
  get(key: string, now: number): Promise<ThrottleEntry | undefined>;
  /**
   * Reserves one attempt, atomically per key: an expired entry is dropped; a locked key refuses; a window that
   * ended starts over at 0 (an ended lock goes with it); a window used up (`count >= maxAttempts`) refuses;
   * otherwise the count goes up by one, and the reservation that reaches `maxAttempts` locks the key for
   * `windowMs` from `now`, so no attempt passes while the last granted ones are still being checked.
   */
  reserve(key: string, reservation: ThrottleReservation): Promise<ThrottleReserved>;
  /**
   * Gives one reservation of the window `windowEndsAt` back, atomically: the count goes down by one (never
   * below 0) and, once it is under `maxAttempts` again, a lock goes too (only reservations made it, and one of
   * them did not fail). Nothing happens when the key has no live entry of that window.
   */
  refund(key: string, refund: ThrottleRefund): Promise<void>;
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
