// Request body parsing shared by every adapter: `application/json` and any
// `+json` type (parameters and case ignored) is JSON; `application/x-www-form-urlencoded` is form data; every
// other type is text. An empty body (or only whitespace) is no body. Malformed JSON and JSON carrying
// prototype-poisoning keys answer 400 BAD_REQUEST.
import { errors } from '../../generated/modules/errors.js';
import { parseFormEncoded } from './query.js';

export type BodyKind = 'json' | 'form' | 'text';

/** The media type without parameters, trimmed and lower-cased: `Application/JSON; charset=x` → `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === '' ? undefined : essence;
}

/** `application/json` or `<type>/<anything>+json`. `text/plain; application/json` is text/plain, so not JSON. */
export function isJsonMediaType(mediaType: string | undefined): boolean {
  if (mediaType === undefined) return false;
  if (mediaType === 'application/json') return true;
  const slash = mediaType.indexOf('/');
  return slash > 0 && mediaType.endsWith('+json') && mediaType.length > slash + 6;
}

/** How a body with this Content-Type header is read. */
export function bodyKindOf(contentType: string | undefined): BodyKind {
  const mediaType = mediaTypeOf(contentType);
  if (isJsonMediaType(mediaType)) return 'json';
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  return 'text';
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) return false;
  }
  return true;
}

/**
 * Whether a parsed JSON value holds a `__proto__` key or a `constructor.prototype` pair anywhere. Iterative, so a
 * deeply nested body cannot overflow the stack.
 */
export function hasPoisoningKey(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (Object.hasOwn(record, '__proto__')) return true;
    if (Object.hasOwn(record, 'constructor')) {
      const ctor = record.constructor;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
    }
    for (const key in record) {
      const item = record[key];
      if (item !== null && typeof item === 'object') pending.push(item);
    }
  }
  return false;
}

// The keys can only appear in the text literally or through \u escapes; most bodies skip the scan.
const MAY_POISON = /__proto__|constructor|\\u/;

/** JSON text → value; undefined for an empty body. Throws 400 BAD_REQUEST when malformed or poisoned. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0 || isBlank(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.BAD_REQUEST();
  }
  if (MAY_POISON.test(text) && hasPoisoningKey(value)) {
    throw errors.BAD_REQUEST({ message: 'Request body contains a forbidden property name.' });
  }
  return value;
}

/** A body read as text, parsed by its Content-Type; undefined when empty. */
export function parseBody(text: string, contentType: string | undefined): unknown {
  const kind = bodyKindOf(contentType);
  if (kind === 'json') return parseJsonBody(text);
  if (text.length === 0) return undefined;
  return kind === 'form' ? parseFormEncoded(text) : text;
}
