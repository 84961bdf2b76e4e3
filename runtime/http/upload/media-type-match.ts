// `allowedTypes` of an upload: exact media types (`image/png`), a whole top-level type (`image/*`) or
// anything (`*/*`), matched case-insensitively against a file's declared type. The declared type is the
// client's claim; content sniffing belongs to whoever stores the file.
import { mediaTypeOf } from '../body.js';
import { isMediaType, isToken } from './header-params.js';

/** `type/subtype`, `type/*` or `*\/*`, without parameters. */
export function isAllowedTypePattern(pattern: string): boolean {
  if (pattern === '*/*') return true;
  // `*` is a token character, so `*/png` or `image/**` would otherwise pass as media types.
  const exact = pattern.endsWith('/*') ? pattern.slice(0, -2) : pattern;
  if (exact.includes('*')) return false;
  return exact === pattern ? isMediaType(pattern) : isToken(exact);
}

/** Whether a declared type (parameters and case ignored) is allowed; `allowed` undefined allows any. */
export function matchesAllowedType(type: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  const essence = mediaTypeOf(type);
  if (essence === undefined || !isMediaType(essence)) return false;
  for (const rawPattern of allowed) {
    const pattern = rawPattern.toLowerCase();
    if (pattern === '*/*' || pattern === essence) return true;
    if (pattern.endsWith('/*') && essence.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
