// One provider document kept for as long as its cache headers allow (http-cache.ts): the discovery document or
// a key set. Concurrent uses share one fetch; a failed fetch is not kept, so the next use tries again.
import { callProvider } from './http.js';
import { freshnessMs } from './http-cache.js';
import type { ProviderContext } from './types.js';

interface Held<T> {
  url: string;
  value: T;
  fetchedAt: number;
  freshUntil: number;
}

export class CachedJson<T> {
  private held: Held<T> | undefined;
  /** The fetch under way, and its URL: a use for another URL does not wait for it. */
  private pending: { url: string; held: Promise<Held<T>> } | undefined;

  /** `read` checks the parsed body and answers the value kept (or throws an OAuthExchangeError). */
  constructor(
    private readonly what: string,
    private readonly read: (json: unknown) => T,
  ) {}

  /** When the value held was fetched (Unix ms), or undefined before the first fetch. */
  get fetchedAt(): number | undefined {
    return this.held?.fetchedAt;
  }

  /** The value at `url`, fetched again when what is held is stale, from another URL, or `refresh`. */
  async get(context: ProviderContext, url: string, refresh = false): Promise<T> {
    const held = this.held;
    if (!refresh && held?.url === url && context.clock() < held.freshUntil) return held.value;
    if (this.pending?.url !== url) {
      const pending = {
        url,
        held: this.fetch(context, url).finally(() => {
          if (this.pending === pending) this.pending = undefined;
        }),
      };
      this.pending = pending;
    }
    return (await this.pending.held).value;
  }

  private async fetch(context: ProviderContext, url: string): Promise<Held<T>> {
    const reply = await callProvider(context, this.what, url, {
      headers: { accept: 'application/json' },
    });
    const value = this.read(reply.json);
    const now = context.clock();
    const held = { url, value, fetchedAt: now, freshUntil: now + freshnessMs(reply.headers, now) };
    this.held = held;
    return held;
  }
}
