// Origins as the CORS allow-list holds them. A browser serialises the requesting page's origin as
// `scheme://host[:port]`, lower-case, without a default port, path or trailing slash; an allow-list entry in
// any other shape would never match, so it is refused at creation rather than silently ignored.

const ORIGIN_SHAPE =
  /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::([1-9][0-9]{0,4}))?$/;

/** Ports a browser leaves out of the origin it sends. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };

/**
 * The allow-list form of one configured origin: lower-cased, the scheme's default port dropped (browsers
 * send `https://a.example`, never `https://a.example:443`). Returns undefined when `entry` is not an origin.
 */
export function normalizeOrigin(entry: string): string | undefined {
  const match = ORIGIN_SHAPE.exec(entry.toLowerCase());
  if (match === null) return undefined;
  const [, scheme = '', host = '', port] = match;
  if (port !== undefined && Number(port) > 65535) return undefined;
  if (port === undefined || DEFAULT_PORTS[scheme] === port) return `${scheme}://${host}`;
  return `${scheme}://${host}:${port}`;
}
