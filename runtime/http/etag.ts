// Conditional GET (meta.etag): a strong ETag from the exact body bytes and If-None-Match matching with the
// weak comparison RFC 9110 §13.1.2 prescribes for it (a W/ prefix on either side is ignored).
import { createHash } from 'node:crypto';

/** A strong entity tag for these bytes: `"<sha1 base64url>"`. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** The opaque tags of an If-None-Match value (`W/` stripped), or '*' for any. Malformed parts are skipped. */
export function parseEntityTags(header: string): string[] | '*' {
  const tags: string[] = [];
  let index = 0;
  const length = header.length;
  while (index < length) {
    const char = header.charCodeAt(index);
    if (char === 0x20 || char === 0x09 || char === 0x2c) {
      index++;
      continue;
    }
    if (char === 0x2a /* * */) return '*';
    let start = index;
    if (header.startsWith('W/', index)) start += 2;
    if (header.charCodeAt(start) !== 0x22 /* " */) {
      // Not an entity tag: skip to the next comma.
      const comma = header.indexOf(',', index);
      index = comma === -1 ? length : comma + 1;
      continue;
    }
    const close = header.indexOf('"', start + 1);
    if (close === -1) break;
    tags.push(header.slice(start, close + 1));
    index = close + 1;
  }
  return tags;
}

/** True when If-None-Match names `etag` (weak comparison) or is `*`. */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  const tags = parseEntityTags(value);
  if (tags === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return tags.includes(opaque);
}
