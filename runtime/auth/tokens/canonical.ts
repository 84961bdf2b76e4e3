// One spelling per token. Node's base64url decoder is lenient: it skips characters outside the alphabet
// (a space), ignores `=` padding and the unused low bits of the last character, so one signed JWT has many
// spellings that jose accepts as the same token. A cache keyed by the token string would then hold each
// spelling apart, and anyone with one valid token could flush it. Only the spelling a signer writes passes:
// RFC 7515 compact form, three segments of unpadded base64url (RFC 7515 §2, RFC 4648 §5) with the unused
// bits of each segment's last character zero (RFC 4648 §3.5: encoders set them to zero).

/** Values of the base64url alphabet by character code; -1 outside it. */
const VALUE = new Int8Array(128).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
for (let index = 0; index < ALPHABET.length; index++) VALUE[ALPHABET.charCodeAt(index)] = index;

/** Mask of the bits a last character may not set, by segment length mod 4 (1 is never a valid length). */
const UNUSED_BITS = [0, -1, 0x0f, 0x03] as const;

/** Whether `text[start, end)` is non-empty unpadded base64url in the one spelling an encoder writes. */
function isCanonicalSegment(text: string, start: number, end: number): boolean {
  const length = end - start;
  const unused = UNUSED_BITS[length % 4] as number;
  if (length === 0 || unused === -1) return false;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code >= 128 || VALUE[code] === -1) return false;
  }
  return ((VALUE[text.charCodeAt(end - 1)] as number) & unused) === 0;
}

/**
 * Whether `token` is a compact JWS in canonical form: exactly three non-empty segments of the base64url
 * alphabet, no padding, no segment whose length is 1 mod 4, and the unused low bits of every segment's last
 * character zero. Says nothing about the signature; a token that passes still goes through verification.
 */
export function isCanonicalCompactJws(token: string): boolean {
  const first = token.indexOf('.');
  if (first === -1) return false;
  const second = token.indexOf('.', first + 1);
  if (second === -1 || token.indexOf('.', second + 1) !== -1) return false;
  return (
    isCanonicalSegment(token, 0, first) &&
    isCanonicalSegment(token, first + 1, second) &&
    isCanonicalSegment(token, second + 1, token.length)
  );
}
