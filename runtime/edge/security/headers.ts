// The secure headers (securityPlugin's `headers` option, default on). They suit a JSON API: nothing it
// answers should run scripts or be framed (the CSP), be sniffed into another type, or be read by a cross-origin
// `no-cors` load. Headers browsers apply only to HTML documents are opt-in, for the whole service
// (`documentHeaders`) or for a route that serves pages (`meta.documentHeaders`): on JSON they change nothing,
// and each header costs every response (bench/RESULTS.md). The lists are built once; each request only copies
// one onto the reply, before anything can answer.
import type { RequestHookInput } from '../../http/types.js';
import type { ResolvedSecureHeaders } from './options.js';

export type HeaderList = readonly (readonly [name: string, value: string])[];

/** The fixed part of the list; the CSP and HSTS values come from the options. */
const FIXED_SECURE_HEADERS: HeaderList = [
  ['x-content-type-options', 'nosniff'],
  ['cross-origin-resource-policy', 'same-origin'],
];

/**
 * Sent with `documentHeaders: true` or on routes with `meta.documentHeaders: true`: browsers apply them to
 * HTML documents only. X-Frame-Options is the pre-CSP way to forbid framing, which the CSP's
 * `frame-ancestors` does in every current browser; Referrer-Policy governs the requests a page makes.
 */
export const DOCUMENT_SECURE_HEADERS: HeaderList = [
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-opener-policy', 'same-origin'],
  ['origin-agent-cluster', '?1'],
  ['x-dns-prefetch-control', 'off'],
  ['x-permitted-cross-domain-policies', 'none'],
];

/** Every header to send, in a stable order. */
export function secureHeaderList(resolved: ResolvedSecureHeaders): HeaderList {
  const list: (readonly [string, string])[] = [];
  if (resolved.contentSecurityPolicy !== false) {
    list.push(['content-security-policy', resolved.contentSecurityPolicy]);
  }
  list.push(...FIXED_SECURE_HEADERS);
  if (resolved.documentHeaders) list.push(...DOCUMENT_SECURE_HEADERS);
  // Sent whatever the scheme: browsers ignore it over plain HTTP (RFC 6797 §8.1), and behind a TLS-terminating
  // proxy svc cannot tell the scheme without trusting a client-controlled header.
  if (resolved.hsts !== false) list.push(['strict-transport-security', resolved.hsts]);
  return list;
}

/** The lists a request picks from: its route's `meta.documentHeaders` asks for the document headers too. */
export interface SecureHeaderLists {
  standard: HeaderList;
  document: HeaderList;
}

export function secureHeaderLists(resolved: ResolvedSecureHeaders): SecureHeaderLists {
  return {
    standard: secureHeaderList(resolved),
    document: secureHeaderList({ ...resolved, documentHeaders: true }),
  };
}

/** A request step that puts the route's list on the reply. */
export function secureHeadersStep(lists: SecureHeaderLists): (input: RequestHookInput) => void {
  const { standard, document } = lists;
  return ({ reply, route }) => {
    const list = route?.meta.documentHeaders === true ? document : standard;
    for (const [name, value] of list) reply.header(name, value);
  };
}
