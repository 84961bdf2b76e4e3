// Request-target helpers: the neutral request's `url` is path plus query, never absolute, even when a client
// sends the absolute form (`GET http://host/path HTTP/1.1`).

/** `http://host/a?b` → `/a?b`; origin-form targets are returned unchanged. */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f /* / */) return target;
  const scheme = target.indexOf('://');
  if (scheme === -1) return target; // `*` (OPTIONS) or something the router will not match anyway
  const slash = target.indexOf('/', scheme + 3);
  const query = target.indexOf('?', scheme + 3);
  if (slash === -1 || (query !== -1 && query < slash)) return `/${query === -1 ? '' : target.slice(query)}`;
  return target.slice(slash);
}

/** The path of an origin-form target, without query string or fragment. */
export function pathOf(url: string): string {
  for (let i = 0; i < url.length; i++) {
    const char = url.charCodeAt(i);
    if (char === 0x3f /* ? */ || char === 0x23 /* # */) return url.slice(0, i);
  }
  return url;
}
