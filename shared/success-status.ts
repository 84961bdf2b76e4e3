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
