// Who may talk to the endpoint from a browser (the DNS-rebinding protection the MCP transport spec asks
// for). An Origin must be this server's own or listed; non-browser clients send none.
// A page on a rebound name (evil.example → 127.0.0.1) sends an Origin matching its Host, so a caller on
// this machine must also name the server by a loopback host, unless the host is listed.
import { errors } from '../../../generated/modules/errors.js';
import type { RequestHeaders } from '../../http/types.js';
import { headerValue } from './header-value.js';

export interface OriginPolicy {
  /** Origins (`https://app.example.com`) allowed besides the server's own; `'*'` allows any. */
  allowedOrigins?: readonly string[];
  /** Host names (`api.example.com` or with `:port`) a loopback caller may use; `'*'` allows any. */
  allowedHosts?: readonly string[];
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(ip: string | undefined): boolean {
  if (ip === undefined) return false;
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return address === '::1' || address.startsWith('127.');
}

/** `Example.com:3000` → `example.com`; `[::1]:3000` → `[::1]`. */
function hostnameOf(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** The `host[:port]` an Origin names, or undefined when it is not a URL origin (`null`, garbage). */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function normalisedOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** Throws MCP_ORIGIN_FORBIDDEN or MCP_HOST_FORBIDDEN (403); returns when the request may go on. */
export function checkOrigin(headers: RequestHeaders, ip: string | undefined, policy: OriginPolicy): void {
  const host = headerValue(headers, 'host')?.toLowerCase();
  const allowedHosts = policy.allowedHosts ?? [];
  if (host !== undefined && isLoopbackAddress(ip) && !allowedHosts.includes('*')) {
    const name = hostnameOf(host);
    const listed = allowedHosts.some((allowed) => {
      const entry = allowed.toLowerCase();
      return entry === host || entry === name;
    });
    if (!LOOPBACK_HOSTNAMES.has(name) && !listed) throw errors.MCP_HOST_FORBIDDEN();
  }

  const origin = headerValue(headers, 'origin');
  if (origin === undefined) return;
  const allowedOrigins = policy.allowedOrigins ?? [];
  if (allowedOrigins.includes('*')) return;
  const sameOrigin = host !== undefined && originHost(origin) === host;
  if (sameOrigin) return;
  const wanted = normalisedOrigin(origin);
  if (allowedOrigins.some((allowed) => normalisedOrigin(allowed) === wanted)) return;
  throw errors.MCP_ORIGIN_FORBIDDEN();
}
