// application/x-www-form-urlencoded parsing for query strings and form bodies. Ours rather than the
// framework's so every adapter reads `?a=1&a=2` the same way: repeated keys become arrays, `+` is a space,
// malformed percent-encoding keeps the raw text instead of throwing, and the result has no prototype.

/** Parsed query or form data: null prototype; a repeated key becomes an array in arrival order. */
export type FormData = Record<string, string | string[]>;

/**
 * Keys that are dropped instead of stored. A null-prototype map cannot be polluted by them, but a handler
 * that later copies the map with Object.assign could be, so they never reach it.
 */
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** Parses `a=1&b=x+y&a=2` (no leading `?`). Never throws. */
export function parseFormEncoded(input: string): FormData {
  const result: FormData = Object.create(null) as FormData;
  const length = input.length;
  let start = 0;
  while (start <= length) {
    let end = input.indexOf('&', start);
    if (end === -1) end = length;
    if (end > start) {
      const equals = input.indexOf('=', start);
      const hasValue = equals !== -1 && equals < end;
      const key = decodeComponent(input.slice(start, hasValue ? equals : end));
      if (!FORBIDDEN_KEYS.has(key)) {
        const value = hasValue ? decodeComponent(input.slice(equals + 1, end)) : '';
        const existing = result[key];
        if (existing === undefined) result[key] = value;
        else if (typeof existing === 'string') result[key] = [existing, value];
        else existing.push(value);
      }
    }
    start = end + 1;
  }
  return result;
}

/** `+` becomes a space and percent escapes are decoded; malformed escapes keep the raw text. */
export function decodeComponent(text: string): string {
  const hasPlus = text.includes('+');
  if (!hasPlus && !text.includes('%')) return text;
  const spaced = hasPlus ? text.replace(/\+/g, ' ') : text;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return text;
  }
}

/** The query part of a request target (`/path?x=1` → `x=1`), or '' when there is none. */
export function queryStringOf(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return '';
  const hash = url.indexOf('#', mark);
  return hash === -1 ? url.slice(mark + 1) : url.slice(mark + 1, hash);
}
