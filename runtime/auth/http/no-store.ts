// Answers that carry a token or start a session must not be kept by any cache (RFC 6749 §5.1:
// `Cache-Control: no-store` and `Pragma: no-cache` for HTTP/1.0 caches). Every such route calls this
// first, before any work, so its error answers get the headers too: a login's errors tell whether the
// password was right (AUTH_MFA_REQUIRED) and whether the account is locked, which no cache should replay.
import type { SvcReply } from '../../http/types.js';

export function noStore(reply: SvcReply): void {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
}
