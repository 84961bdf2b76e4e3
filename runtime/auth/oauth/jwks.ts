// A provider's signing keys: its JWKS, kept per the reply's cache headers (cached-json.ts). A token signed by
// a key the held set lacks (the provider rotated its keys) makes the set be fetched again once, before the
// token is refused, but not more than once per cooldown: a stream of tokens naming unknown keys cannot turn
// into a stream of fetches.
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type LocalJWKSet } from 'jose';
import { CachedJson } from './cached-json.js';
import { OAuthExchangeError } from './exchange-error.js';
import type { ProviderContext } from './types.js';

/** The least time between two fetches of a key set caused by unknown keys. */
export const KEY_REFETCH_COOLDOWN_MS = 30_000;

export class ProviderKeys {
  private readonly keys: CachedJson<LocalJWKSet>;

  constructor() {
    this.keys = new CachedJson('JWKS endpoint', readKeySet);
  }

  /**
   * Runs `verify` with the held keys; when it fails for want of a matching key and the set was fetched at
   * least a cooldown ago, fetches the set again and runs it once more.
   */
  async withKeys<T>(
    context: ProviderContext,
    url: string,
    verify: (keys: LocalJWKSet) => Promise<T>,
  ): Promise<T> {
    const keys = await this.keys.get(context, url);
    try {
      return await verify(keys);
    } catch (error) {
      const fetchedAt = this.keys.fetchedAt ?? Number.NEGATIVE_INFINITY;
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      if (context.clock() - fetchedAt < KEY_REFETCH_COOLDOWN_MS) throw error;
      return verify(await this.keys.get(context, url, true));
    }
  }
}

function readKeySet(json: unknown): LocalJWKSet {
  const keys = (json as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new OAuthExchangeError('JWKS endpoint answered no `keys` list');
  try {
    return createLocalJWKSet(json as JSONWebKeySet);
  } catch (error) {
    throw new OAuthExchangeError(`JWKS endpoint answered an invalid key set: ${String(error)}`);
  }
}
