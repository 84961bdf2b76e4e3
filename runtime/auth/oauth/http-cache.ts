// How long a provider's discovery document or key set may be reused: what its reply's cache headers say.
// `no-store`, `no-cache` or `max-age=0` mean not at all (fetched again at each use); `max-age` (less the
// `Age` the reply already had) wins over `Expires`; with neither, one hour. Any lifetime is capped at one day,
// so a provider's mistake cannot pin a key set for weeks. A key set is also fetched again early when a token
// names a key it lacks (jwks.ts).

/** Reuse time of a reply without cache headers. */
export const DEFAULT_CACHE_MS = 60 * 60_000;
/** The longest reuse time any header may ask for. */
export const MAX_CACHE_MS = 24 * 60 * 60_000;

/** How many ms from `now` a reply with these headers may be reused; 0 when not at all. */
export function freshnessMs(headers: Headers, now: number): number {
  const control = (headers.get('cache-control') ?? '').toLowerCase();
  const directives = new Map<string, string | undefined>();
  for (const part of control.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name !== undefined && name !== '') directives.set(name, value?.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) {
    if (!/^\d+$/.test(maxAge)) return 0;
    const age = Number(/^\d+$/.test(headers.get('age') ?? '') ? headers.get('age') : 0);
    return clamp((Number(maxAge) - age) * 1000);
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const at = Date.parse(expires);
    if (Number.isNaN(at)) return 0;
    const date = Date.parse(headers.get('date') ?? '');
    return clamp(at - (Number.isNaN(date) ? now : date));
  }
  return DEFAULT_CACHE_MS;
}

function clamp(ms: number): number {
  return Math.max(0, Math.min(ms, MAX_CACHE_MS));
}
