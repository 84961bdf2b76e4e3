// Reading `meta.rateLimit`: a malformed value is ignored, so only the
// global bucket applies to that route. Read once per route and cached.
import { isPositiveWholeNumber } from '../../config/whole-number.js';
import type { PipelineInput, Route } from '../../http/types.js';

/** Picks the bucket of a request from the route input; an empty or non-string answer falls back to the IP. */
export type RateLimitKeyFunction = (input: PipelineInput) => string;

export type RateLimitKey = 'ip' | 'user' | 'tenant' | 'user+tenant' | RateLimitKeyFunction;

/** The shape of `meta.rateLimit`. */
export interface RouteRateLimit {
  limit: number;
  windowMs: number;
  /** Default 'ip'. */
  key?: RateLimitKey;
  /** Hit the store on every request even when it leases (sign-in, codes): no hit reserved and lost. Default false. */
  exact?: boolean;
}

export interface ResolvedRouteRateLimit {
  limit: number;
  windowMs: number;
  key: RateLimitKey;
  exact: boolean;
}

const NAMED_KEYS: readonly string[] = ['ip', 'user', 'tenant', 'user+tenant'];

function resolve(value: unknown): ResolvedRouteRateLimit | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { limit, windowMs, key = 'ip', exact = false } = value as Record<string, unknown>;
  if (!isPositiveWholeNumber(limit) || !isPositiveWholeNumber(windowMs)) return undefined;
  if (typeof key !== 'function' && !(typeof key === 'string' && NAMED_KEYS.includes(key))) return undefined;
  if (typeof exact !== 'boolean') return undefined;
  return { limit, windowMs, key: key as RateLimitKey, exact };
}

const cache = new WeakMap<Route, ResolvedRouteRateLimit | null>();

/** The route's own limit, or undefined when it has none or a malformed one. */
export function routeRateLimit(route: Route): ResolvedRouteRateLimit | undefined {
  let resolved = cache.get(route);
  if (resolved === undefined) {
    resolved = resolve(route.meta.rateLimit) ?? null;
    cache.set(route, resolved);
  }
  return resolved ?? undefined;
}
