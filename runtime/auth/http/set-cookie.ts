// Writing the session cookie's Set-Cookie line on a reply. One answer says one thing about the cookie: a
// line written later (the new session of a sign-in) replaces an earlier one for the same cookie (the expiry
// of an unverifiable cookie), and lines other code set for other cookies stay. `reply.header()` replaces
// the whole header on every adapter, so the list is rebuilt here.
import type { SvcReply } from '../../http/types.js';
import type { SessionCookie } from './cookie.js';

export function putSessionCookie(reply: SvcReply, cookie: SessionCookie, line: string): void {
  const current = reply.getHeader('set-cookie');
  if (current === undefined) {
    reply.header('set-cookie', line);
    return;
  }
  const prefix = `${cookie.name}=`;
  const kept = (Array.isArray(current) ? current : [String(current)]).filter(
    (other) => !other.startsWith(prefix),
  );
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', kept.length === 0 ? line : [...kept, line]);
}
