// The guard rules of API keys, in one place: the guard refuses a key-authenticated request with the code this
// answers, and tool listings hide a route for which it answers one, so an agent is never shown a tool its key
// cannot call. A key is refused
//   1. on a route with `apiKey: false`, or a step-up route (`mfa: true`: it asks for a sign-in made with a
//      second factor, which a key never is) (AUTH_APIKEY_NOT_ALLOWED);
//   2. when it was issued in a tenant and the request resolves another tenant or none, or it belongs to no
//      tenant and the request resolves one, unless tenantless keys are allowed (AUTH_APIKEY_TENANT_MISMATCH);
//   3. on a route declaring `scopes` it does not all hold (AUTH_SCOPE_REQUIRED);
//   4. without `*`, on a route that protects something (`auth`, `can`, `teamRole` or `audience`) and declares
//      no scopes: nobody said such a narrow key may act there (AUTH_SCOPE_REQUIRED), unless allowed.
import { API_KEY_PROTECTING_META, refusesApiKeys } from '../../../shared/api-key-meta.js';
import type { RequestContext, Route } from '../../http/types.js';
import { namedTenantOf } from '../../tenancy/policy.js';
import { isNarrow, isScope, scopesSatisfy } from '../apikeys/scopes.js';

/** `context.apiKey` on a key-authenticated request. */
export interface RequestApiKey {
  id: string;
  scopes: readonly string[];
  tenantId?: string;
  userId?: string;
}

/** The key the request was authenticated with, or undefined. */
export function apiKeyOf(context: RequestContext): RequestApiKey | undefined {
  return context.apiKey as RequestApiKey | undefined;
}

export interface ApiKeyRuleSettings {
  /** Keys of no tenant may act on requests that resolve one. Default false. */
  allowTenantlessKeys: boolean;
  /** Keys without `*` may act on protected routes that declare no scopes. Default false. */
  allowNarrowKeysOnUnscopedRoutes: boolean;
}

export type ApiKeyRefusal = 'AUTH_APIKEY_NOT_ALLOWED' | 'AUTH_APIKEY_TENANT_MISMATCH' | 'AUTH_SCOPE_REQUIRED';

/** `meta.scopes` as the guard reads it: a non-empty list of scopes; undefined when the route declares none. */
export function requiredScopes(route: Route): readonly string[] | undefined {
  const scopes = route.meta.scopes;
  return Array.isArray(scopes) && scopes.length > 0 ? (scopes as string[]) : undefined;
}

/** What is wrong with `meta.scopes` and `meta.apiKey` (boot); [] when nothing. */
export function apiKeyMetaProblems(route: Route, offered: readonly string[]): string[] {
  const problems: string[] = [];
  const scopes: unknown = route.meta.scopes;
  const apiKey: unknown = route.meta.apiKey;
  if (apiKey !== undefined && typeof apiKey !== 'boolean') problems.push('meta.apiKey must be true or false');
  if (scopes === undefined || scopes === false) return problems;
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope)) {
    problems.push("meta.scopes must be a non-empty list of scopes like 'reports:read'");
    return problems;
  }
  if (offered.includes('*')) return problems;
  for (const scope of scopes as string[]) {
    if (!offered.includes(scope)) {
      problems.push(
        `meta.scopes names "${scope}", which no key can hold: the keys' scopes are ${offered.join(', ')}`,
      );
    }
  }
  return problems;
}

/** Why the key may not act on this route for this request, or undefined when it may. */
export function apiKeyRefusal(
  route: Route,
  key: RequestApiKey,
  context: RequestContext,
  settings: ApiKeyRuleSettings,
): ApiKeyRefusal | undefined {
  if (refusesApiKeys(route.meta)) return 'AUTH_APIKEY_NOT_ALLOWED';
  const tenant = namedTenantOf(context);
  if (
    key.tenantId === undefined
      ? tenant !== undefined && !settings.allowTenantlessKeys
      : tenant !== key.tenantId
  ) {
    return 'AUTH_APIKEY_TENANT_MISMATCH';
  }
  const required = requiredScopes(route);
  if (required !== undefined) return scopesSatisfy(key.scopes, required) ? undefined : 'AUTH_SCOPE_REQUIRED';
  if (settings.allowNarrowKeysOnUnscopedRoutes || !isNarrow(key.scopes)) return undefined;
  return protects(route) ? 'AUTH_SCOPE_REQUIRED' : undefined;
}

function protects(route: Route): boolean {
  return API_KEY_PROTECTING_META.some((key) => {
    const value = route.meta[key];
    return value !== undefined && value !== false;
  });
}
