// The secure headers (seed 001 "Edge plugin options": `headers`, default on). They suit a JSON API: nothing it
// answers should run scripts, be framed, be sniffed into another type, be read by a cross-origin `no-cors`
// load or leak the page it was called from. Headers browsers apply only to HTML documents are opt-in
// (`documentHeaders`): on JSON they change nothing, and each header costs every response (bench/RESULTS.md).
// The list is built once; each request only copies it onto the reply, before anything can answer.
import type { RequestHookInput } from '../../http/types.js';
import type { ResolvedSecureHeaders } from './options.js';

export type HeaderList = readonly (readonly [name: string, value: string])[];

/** The fixed part of the list; the CSP and HSTS values come from the options. */
const FIXED_SECURE_HEADERS: HeaderList = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-resource-policy', 'same-origin'],
];

/** Sent with `documentHeaders: true`: browsers apply them to HTML documents only. */
export const DOCUMENT_SECURE_HEADERS: HeaderList = [
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

/** A request step that puts `list` on the reply. */
export function secureHeadersStep(list: HeaderList): (input: RequestHookInput) => void {
  return ({ reply }) => {
    for (const [name, value] of list) reply.header(name, value);
  };
}
