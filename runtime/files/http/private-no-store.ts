// A file's bytes are one user's data, and a temporary URL is a credential: no shared or stored copy of an
// answer that carries either, nor of a refusal of one (a 404 is cacheable by default, and a request with a
// signed URL carries no Authorization header that would keep a shared cache away).
import type { SvcReply } from '../../http/types.js';

const PRIVATE_NO_STORE = 'private, no-store';

/** Marks the answer uncacheable before any work, so the route's error answers carry it too. */
export function privateNoStore(reply: SvcReply): void {
  reply.header('cache-control', PRIVATE_NO_STORE);
}
