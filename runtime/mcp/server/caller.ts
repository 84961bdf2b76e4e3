// Who a tool session belongs to (seed 001 "Authentication" 6): the signed-in user and tenant, or, for an
// anonymous caller, a keyed fingerprint of its Authorization header. The key is random per process, so
// fingerprints mean nothing outside it and the header itself is never kept.
import { createHmac, randomBytes } from 'node:crypto';
import type { RequestContext, RequestHeaders } from '../../http/types.js';

const FINGERPRINT_KEY = randomBytes(32);

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return undefined;
}

function fingerprint(authorization: string): string {
  return `anonymous:${createHmac('sha256', FINGERPRINT_KEY).update(authorization).digest('base64url')}`;
}

/** Callers without an Authorization header all share this key; computed once. */
const NO_AUTHORIZATION = fingerprint('');

export function callerKey(context: RequestContext, headers: RequestHeaders): string {
  const user = idOf(context.user);
  const tenant = idOf(context.tenant) ?? '';
  if (user !== undefined) return `user:${JSON.stringify([user, tenant])}`;
  const authorization = headers.authorization;
  return authorization === undefined || authorization === '' ? NO_AUTHORIZATION : fingerprint(authorization);
}
