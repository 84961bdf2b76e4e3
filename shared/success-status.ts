// The one rule for the status a handler's returned value answers with: the lowest 2xx the route declares,
// else 200. routes.ts (written by the generator), route() for handwritten routes and both OpenAPI documents
// read it, so a route never answers with one status while its description names another.

/** What a route answers when it declares no 2xx response. */
const DEFAULT_SUCCESS_STATUS = 200;

/** The lowest 2xx among `statuses` (response-map keys, as strings or numbers); 200 when there is none. */
export function successStatusOf(statuses: Iterable<string | number>): number {
  let lowest: number | undefined;
  for (const key of statuses) {
    const status = Number(key);
    if (!Number.isInteger(status) || status < 200 || status > 299) continue;
    if (lowest === undefined || status < lowest) lowest = status;
  }
  return lowest ?? DEFAULT_SUCCESS_STATUS;
}

/** Statuses that send the client elsewhere (RFC 9110 §15.4); a route that only redirects answers no 2xx. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** True for 301, 302, 303, 307 and 308 (not 300 or 304, which answer where they are). */
export function isRedirectStatus(status: string | number): boolean {
  return REDIRECT_STATUSES.has(Number(status));
}
