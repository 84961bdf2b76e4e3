// What makes two keyed requests "the same request" (IETF Idempotency-Key draft §2.4, as Stripe does): method,
// route, URL (path and query) and body. A key sent again with a different request is refused
// (IDEMPOTENCY_KEY_REUSED) instead of replaying an answer to something the client did not send.
import { createHash } from 'node:crypto';
import type { Route, SvcRequest } from '../http/types.js';

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The body as the handler will see it: JSON re-serialised from its parsed value (so whitespace or escaping
 * that changes nothing the handler reads is not a different request), form fields, or text. Upload and raw
 * bodies are read only after this decision and may be gigabytes: their declared type and length stand in.
 */
function bodyPart(request: SvcRequest, route: Route): unknown {
  const kind = route.body?.kind;
  if (kind === 'upload' || kind === 'raw') {
    return [
      'stream',
      headerText(request.headers['content-type']),
      headerText(request.headers['content-length']),
    ];
  }
  return [request.bodyKind ?? null, request.body ?? null];
}

/** The hex SHA-256 of the request's method, route template, URL and body. */
export function requestFingerprint(request: SvcRequest, route: Route): string {
  const parts = JSON.stringify([request.method, route.url, request.url, bodyPart(request, route)]);
  return createHash('sha256').update(parts).digest('hex');
}
