// The idempotency scope: credential headers + tenant (x-tenant-id, host, and the tenant the tenancy plugin
// resolved, however the application names it) + method + route + key, hashed with SHA-256 so the store never
// holds a credential or a raw key.
import { createHash } from 'node:crypto';
import type { RequestHeaders, Route, SvcRequest } from '../http/types.js';

export const DEFAULT_CREDENTIAL_HEADERS = ['authorization', 'x-session-id', 'cookie', 'x-api-key'] as const;
const TENANT_HEADERS = ['x-tenant-id', 'host'] as const;

function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join('\n') : value;
}

export interface ScopeInput {
  request: SvcRequest;
  route: Route;
  key: string;
  credentialHeaders: readonly string[];
  allowAnonymous: boolean;
  /** The tenant the request names as the tenancy plugin resolves it (undefined without tenancy or tenant). */
  tenant?: string | undefined;
}

/**
 * The hex SHA-256 of the request's scope, or undefined for an anonymous request (none of the credential
 * headers) when anonymous requests are not allowed: without a credential two callers could share a key.
 */
export function idempotencyScope({
  request,
  route,
  key,
  credentialHeaders,
  allowAnonymous,
  tenant: resolvedTenant,
}: ScopeInput): string | undefined {
  const credentials = credentialHeaders.map((name) => [name, headerValue(request.headers, name) ?? null]);
  if (!allowAnonymous && credentials.every(([, value]) => value === null)) return undefined;
  const tenant = [
    ...TENANT_HEADERS.map((name) => [name, headerValue(request.headers, name) ?? null]),
    ['resolved', resolvedTenant ?? null],
  ];
  // JSON keeps the parts apart: no value can imitate a separator and shift into another part.
  // Template and concrete path both: /notes/1 and /notes/2 are different resources under one template.
  const scope = JSON.stringify([credentials, tenant, request.method, route.url, request.path, key]);
  return createHash('sha256').update(scope).digest('hex');
}
