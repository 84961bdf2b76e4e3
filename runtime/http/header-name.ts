// Lower-cased header names for the replies' header records (Fastify, Hono, tool calls). The names a service
// sets come from its code and repeat on every response (x-request-id, the secure headers, traceparent), and
// String#toLowerCase allocates and costs about 30 ns per call: six per request on the edge bench. A bounded
// table remembers them; a service that makes names up per request (it should not) only stops being
// remembered past the bound.

const REMEMBERED_NAMES = 512;
const lowered = new Map<string, string>();

/** `name` in lower case, as node and the adapters key headers. */
export function lowerHeaderName(name: string): string {
  let key = lowered.get(name);
  if (key === undefined) {
    key = name.toLowerCase();
    if (lowered.size < REMEMBERED_NAMES) lowered.set(name, key);
  }
  return key;
}
