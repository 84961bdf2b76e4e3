// Which URLs a provider may be reached at: `https:` always, plain `http:` only on this machine (127.0.0.0/8,
// [::1], localhost), where a test or development provider runs. Codes, tokens and keys never cross a network
// in clear text. A provider whose issuer is away from this machine has every endpoint away from it too, and
// on https: only: a public provider's discovery document (or a configuration copied from one) naming
// `http://127.0.0.1:8500/…` would otherwise make the server send its client secret and the code to its own
// local services.
import { isIPv4 } from 'node:net';

/** Whether `hostname` (as URL.hostname gives it) names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/**
 * Whether `hostname` may reach this machine, more widely than `isLoopbackHost` (which decides where plain
 * http: is allowed): also `*.localhost`, a trailing dot, 0.0.0.0/8 and `[::]` (which connect locally), and
 * IPv4-mapped forms of those.
 */
function reachesThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (isLoopbackHost(host) || host.endsWith('.localhost') || host === '[::]') return true;
  if (isIPv4(host) && host.startsWith('0.')) return true;
  // The URL parser writes [::ffff:127.0.0.1] as [::ffff:7f00:1] and [::ffff:0.0.0.0] as [::ffff:0:0].
  return /^\[::ffff:(7f[0-9a-f]{2}|[0-9a-f]{1,2}):[0-9a-f]{1,4}\]$/.test(host);
}

/** Whether `issuer` (an absolute URL) is a provider on this machine, so its endpoints may be plain http:. */
export function isLoopbackIssuer(issuer: string): boolean {
  try {
    return isLoopbackHost(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

/** The URL when `value` is an absolute https: URL (http: on loopback) without credentials or fragment. */
export function secureUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined;
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  return undefined;
}

/**
 * The URL when `value` may be an endpoint of the provider whose issuer is `issuer`: `secureUrl`, and when the
 * issuer is known and away from this machine, https: on a host away from it too.
 */
export function endpointUrl(value: unknown, issuer: string | undefined): URL | undefined {
  const url = secureUrl(value);
  if (url === undefined || issuer === undefined || isLoopbackIssuer(issuer)) return url;
  return url.protocol === 'https:' && !reachesThisMachine(url.hostname) ? url : undefined;
}

/** What `endpointUrl` accepts, for a refusal's message. */
export function endpointRule(issuer: string | undefined): string {
  return issuer === undefined || isLoopbackIssuer(issuer)
    ? 'an https: URL (http: only on loopback)'
    : 'an https: URL away from this machine (the issuer is not on loopback)';
}
