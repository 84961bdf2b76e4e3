// The invalidation bus: how a change made by one process reaches every process's hot cache. A writer
// publishes a topic (`session:<hash>`, `user:<id>`, …) after its write is stored; every process, the writer
// included, drops what the topic names before it serves that key again. The bus also says whether it can be
// trusted right now: while it is down, or after it came back (messages may have been missed meanwhile), a
// cached entry is served only while it is younger than the short fallback window (see hot-cache.ts).

export interface InvalidationBus {
  /**
   * Sends `topic` to every process. Resolves once the backend took it (Redis PUBLISH answered, the NOTIFY
   * committed); rejects with STORE_UNAVAILABLE when it cannot. This process's listeners run first, synchronously.
   */
  publish(topic: string): Promise<void>;
  /** Calls `listener` with every topic any process publishes, and with `'*'` when messages may have been missed. */
  subscribe(listener: (topic: string) => void): () => void;
  /**
   * Changes each time the bus goes down or comes back: an entry fetched under an older epoch may have missed
   * its invalidation and is trusted only for the fallback window.
   */
  readonly epoch: number;
  /** Whether every process's messages are known to reach this one now (`now`: epoch ms). */
  isUp(now: number): boolean;
  close(): Promise<void>;
}

/** The topic every entry of a user is tagged with: sessions, keys and the user record itself. */
export const userTopic = (userId: string): string => `user:${userId}`;
/** One session, by the hash of its id. */
export const sessionTopic = (idHash: string): string => `session:${idHash}`;
/** One API key, by its id. */
export const apiKeyTopic = (id: string): string => `apikey:${id}`;
/** One user's role in one tenant. */
export const membershipTopic = (tenantId: string, userId: string): string =>
  `member:${JSON.stringify([tenantId, userId])}`;
/** What a listener receives when it must assume it missed messages: everything cached is suspect. */
export const EVERYTHING = '*';
