// Boot checks over every route in `http:routes`: no method+path twice, every meta validator satisfied, and
// every guarded meta key enforced by some plugin. Misconfiguration refuses to boot with a named code.
import {
  InvalidRouteMetaError,
  RouteConflictError,
  UnguardedRouteMetaError,
  type RouteMetaProblem,
  type UnguardedMeta,
} from './http-errors.js';
import type { GuardedMetaClaim, MetaValidator, Route } from './types.js';
import { pathShape } from '../../shared/path-template.js';

/** Meta keys that promise protection: a route using one boots only when a plugin claims it. */
export const GUARDED_META_KEYS: readonly string[] = [
  'auth',
  'can',
  'teamRole',
  'scopes',
  'subscribed',
  'feature',
  'mfa',
  'apiKey',
  'audience',
  // Promises that a keyed retry never runs the handler twice; idempotencyPlugin keeps the promise.
  'idempotency',
];

/** `true` waives every key; a list waives the named keys; undefined or false waives none. */
export type AllowUnguardedMeta = boolean | readonly string[];

/** How a route is named in boot errors: `getNote (GET /notes/:id)` or `GET /notes/:id`. */
export function routeLabel(route: Pick<Route, 'id' | 'method' | 'url'>): string {
  return route.id === undefined
    ? `${route.method} ${route.url}`
    : `${route.id} (${route.method} ${route.url})`;
}

/** Throws RouteConflictError when two routes share method and path. */
export function checkRouteConflicts(routes: readonly Route[]): void {
  const seen = new Map<string, Route>();
  const conflicts: string[] = [];
  for (const route of routes) {
    // `/a/:id` and `/a/:name` are one path to every router.
    const key = `${route.method} ${pathShape(route.url)}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, route);
    else conflicts.push(`${routeLabel(route)} repeats ${routeLabel(first)}`);
  }
  if (conflicts.length > 0) throw new RouteConflictError(conflicts);
}

/** Runs every meta validator over every route; throws InvalidRouteMetaError listing all problems. */
export function checkRouteMeta(routes: readonly Route[], validators: readonly MetaValidator[]): void {
  const problems: RouteMetaProblem[] = [];
  for (const route of routes) {
    for (const validator of validators) {
      let found: readonly string[];
      try {
        found = validator.validate(route);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        found = [`meta validator "${validator.name}" failed: ${reason}`];
      }
      for (const problem of found) problems.push({ route: routeLabel(route), problem });
    }
  }
  if (problems.length > 0) throw new InvalidRouteMetaError(problems);
}

export interface GuardedMetaCheckOptions {
  claims: readonly GuardedMetaClaim[];
  /** Keys plugins declared guarded (bucket `http:guarded-meta-keys`), beside GUARDED_META_KEYS. */
  extraKeys?: readonly string[];
  allowUnguardedMeta?: AllowUnguardedMeta;
}

/** Throws UnguardedRouteMetaError for every guarded key a route sets (not false/undefined) that nobody claimed. */
export function checkGuardedMeta(routes: readonly Route[], options: GuardedMetaCheckOptions): void {
  const waiver = options.allowUnguardedMeta;
  if (waiver === true) return;
  const waived = new Set(Array.isArray(waiver) ? waiver : []);
  const claimed = new Set(options.claims.map((claim) => claim.key));
  const enforceable = [...new Set([...GUARDED_META_KEYS, ...(options.extraKeys ?? [])])].filter(
    (key) => !waived.has(key),
  );
  const guarded = enforceable.filter((key) => !claimed.has(key));
  const unguarded: UnguardedMeta[] = [];
  for (const route of routes) {
    // No guard runs on an edge route, so a claim cannot protect it: every guarded key there is unguarded.
    for (const key of route.edge === true ? enforceable : guarded) {
      if (!Object.hasOwn(route.meta, key)) continue;
      const value = route.meta[key];
      // false and undefined are opt-offs (`apiKey: false`, `mfa: false`): nothing to enforce.
      if (value === false || value === undefined) continue;
      unguarded.push({ route: routeLabel(route), key });
    }
  }
  if (unguarded.length > 0) throw new UnguardedRouteMetaError(unguarded);
}
