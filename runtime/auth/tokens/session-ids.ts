// Session ids: a session id carries `amr` (how the user signed in) and is HMAC-signed. An id is
// `<random>.<amr>.<mac>`: 32 random bytes in unpadded base64url, the amr entries joined by `-` (entries are
// [a-z0-9_], so `-` and `.` never occur inside a part), and the unpadded base64url HMAC-SHA256 of
// `<random>.<amr>` under a key derived for this purpose. Every character is in [A-Za-z0-9._-], safe
// unencoded in a cookie value and an HTTP header. A changed amr breaks the MAC, so a cookie cannot claim a
// second factor it never passed. Stores key a session by hashToken(id) of the whole id string
// (sessionIdHash), never by the random part alone. One spelling per id: the MAC covers `<random>.<amr>` as
// a string (another spelling of the random bytes is another string, with another MAC), and the presented
// MAC is compared with the canonical base64url string of the expected one, never decoded, so padding or
// changed unused bits of its last character fail the comparison.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AMR_LIMITS, assertAmrList } from './amr.js';
import { hashToken } from './opaque.js';
import { KEY_PURPOSES, assertSigningSecret, deriveKey } from './secret.js';

/** Ids longer than this are refused before any work. */
export const MAX_SESSION_ID_LENGTH = 256;

const RANDOM_BYTES = 32;
/** 32 bytes in unpadded base64url, for the random part and for the HMAC-SHA256 tag alike. */
const PART_32_BYTES = '[A-Za-z0-9_-]{43}';
const AMR_ENTRY = AMR_LIMITS.entry.source.replace(/^\^|\$$/g, '');
const AMR_PART = `(?:${AMR_ENTRY}(?:-${AMR_ENTRY}){0,${AMR_LIMITS.maxEntries - 1}})?`;
const SESSION_ID = new RegExp(`^(${PART_32_BYTES}\\.(${AMR_PART}))\\.(${PART_32_BYTES})$`);

export interface SessionIdsOptions {
  /** The signing secret; the MAC key is derived from it (deriveKey, KEY_PURPOSES.sessionId). */
  secret: string;
  /** Read for the secret-strength rule (assertSigningSecret). Default process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
}

export interface ParsedSessionId {
  amr: string[];
}

/** The store key of a session id: hashToken of the whole id (random part, amr and MAC). */
export function sessionIdHash(id: string): string {
  return hashToken(id);
}

export class SessionIds {
  private readonly macKey: Buffer;

  constructor(options: SessionIdsOptions) {
    if ('nodeEnv' in options) assertSigningSecret(options.secret, options.nodeEnv);
    else assertSigningSecret(options.secret);
    this.macKey = deriveKey(options.secret, KEY_PURPOSES.sessionId);
  }

  /** A new session id signing `amr` (at most 8 entries matching /^[a-z0-9_]{1,16}$/; TypeError otherwise). */
  create(amr: readonly string[]): string {
    assertAmrList(amr, 'SessionIds.create()');
    const signed = `${randomBytes(RANDOM_BYTES).toString('base64url')}.${amr.join('-')}`;
    return `${signed}.${this.mac(signed)}`;
  }

  /** The amr a well-formed id signed with this secret carries; undefined for anything else. */
  parse(id: string): ParsedSessionId | undefined {
    if (typeof id !== 'string' || id.length > MAX_SESSION_ID_LENGTH) return undefined;
    const match = SESSION_ID.exec(id);
    if (match === null) return undefined;
    const [, signed = '', amrPart = '', presentedMac = ''] = match;
    const expected = Buffer.from(this.mac(signed), 'latin1');
    if (!timingSafeEqual(expected, Buffer.from(presentedMac, 'latin1'))) return undefined;
    return { amr: amrPart === '' ? [] : amrPart.split('-') };
  }

  private mac(signed: string): string {
    return createHmac('sha256', this.macKey).update(signed, 'latin1').digest('base64url');
  }
}
