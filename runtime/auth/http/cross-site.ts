// Cross-site detection for cookie-authenticated requests (a cross-site cookie-only logout answers
// 403 AUTH_CSRF_REJECTED; svc applies the same rule to every unsafe request that only a cookie
// authenticates). Browsers say where a request comes from: Sec-Fetch-Site first (every current browser sends
// it), else Origin compared with Host. Requests with neither are not from a browser page and pass.
import type { RequestHeaders } from '../../http/types.js';
import { headerValue } from './credentials.js';

export function isCrossSite(headers: RequestHeaders, trustedOrigins: ReadonlySet<string>): boolean {
  const origin = headerValue(headers.origin);
  if (origin !== undefined && trustedOrigins.has(origin)) return false;
  const site = headerValue(headers['sec-fetch-site']);
  if (site !== undefined) return site === 'cross-site';
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  const host = headerValue(headers.host);
  try {
    return host === undefined || new URL(origin).host !== host.toLowerCase();
  } catch {
    return true;
  }
}
