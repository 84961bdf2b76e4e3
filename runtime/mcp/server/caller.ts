// Who a tool session belongs to: the API key (with its user and tenant), the signed-in user and tenant, or,
// for an anonymous caller, a keyed fingerprint of its Authorization header (the header itself is never kept).
// And whose allowance it counts against (`sessions.maxPerCaller`): the key or the user, or an anonymous
// caller's client address, so one address opening sessions under ever new Authorization values still holds only its share.
//
// The fingerprint key is derived (HKDF) from the service secret, so every process sharing the secret and the
// session store recognises an anonymous caller's session; without a secret it is random per process and
// anonymous sessions work on the process that opened them only.
import { createHmac, randomBytes } from 'node:crypto';
import { KEY_PURPOSES, deriveKey } from '../../auth/tokens/secret.js';
import type { RequestContext, RequestHeaders } from '../../http/types.js';

export interface SessionCaller {
  /** What the session is bound to: only this caller may use or end it. */
  readonly key: string;
  /** Whose allowance of live sessions it counts against. */
  readonly owner: string;
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return undefined;
}

/** The fingerprint key for `secret`, or a random one for this process alone. */
function fingerprintKey(secret: string | undefined): Buffer {
  return secret === undefined ? randomBytes(32) : deriveKey(secret, KEY_PURPOSES.mcpCallerFingerprint);
}

export class CallerKeys {
  private readonly key: Buffer;
  /** Callers without an Authorization header all share this key; computed once. */
  private readonly noAuthorization: string;

  constructor(secret?: string) {
    this.key = fingerprintKey(secret);
    this.noAuthorization = this.fingerprint('anonymous', '');
  }

  /** The session key of the request's caller (use and close need no more). */
  keyOf(context: RequestContext, headers: RequestHeaders): string {
    const user = idOf(context.user);
    // An API key is a caller of its own, even one acting for a user: a session opened with the user's sign-in
    // is not the key's, nor one key's another's, and a key sent in its own header is never anonymous.
    const apiKey = idOf(context.apiKey);
    if (apiKey !== undefined)
      return `key:${JSON.stringify([apiKey, user ?? '', idOf(context.tenant) ?? ''])}`;
    if (user !== undefined) return `user:${JSON.stringify([user, idOf(context.tenant) ?? ''])}`;
    const authorization = headers.authorization;
    return authorization === undefined || authorization === ''
      ? this.noAuthorization
      : this.fingerprint('anonymous', authorization);
  }

  /** Key and owner of the request's caller; an unknown address is one owner, as it is one rate-limit bucket. */
  of(context: RequestContext, headers: RequestHeaders, ip: string | undefined): SessionCaller {
    const key = this.keyOf(context, headers);
    // Addresses are keyed too: the store never holds a client's IP.
    const owner = key.startsWith('user:') || key.startsWith('key:') ? key : this.fingerprint('ip', ip ?? '');
    return { key, owner };
  }

  private fingerprint(kind: string, value: string): string {
    return `${kind}:${createHmac('sha256', this.key).update(value).digest('base64url')}`;
  }
}
