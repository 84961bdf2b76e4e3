// API-key scopes: what a key may do, as `resource:action` strings (`reports:read`), and `*`, every scope.
// A route's `meta.scopes` lists what a key must hold; a key holding `*` holds them all.

/** The scope that grants every other. */
export const ALL_SCOPES = '*';

const SCOPE = /^[A-Za-z0-9][A-Za-z0-9_.-]*(?::[A-Za-z0-9_.-]+)*$/;
const MAX_SCOPE_LENGTH = 100;

/** `*`, or names of letters, digits, `_`, `.` and `-` joined by `:` (`reports:read`), at most 100 characters. */
export function isScope(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_SCOPE_LENGTH &&
    (value === ALL_SCOPES || SCOPE.test(value))
  );
}

/** Whether a key granted `granted` holds every scope in `required`: `*` holds all. */
export function scopesSatisfy(granted: readonly string[], required: readonly string[]): boolean {
  if (granted.includes(ALL_SCOPES)) return true;
  return required.every((scope) => granted.includes(scope));
}

/** The scopes a key holds, beyond which it can do nothing: all of them only with `*`. */
export function isNarrow(granted: readonly string[]): boolean {
  return !granted.includes(ALL_SCOPES);
}
