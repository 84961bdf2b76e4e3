// Where clamd listens, written as one URL so that a config file can carry it as a single string:
// `clamd://host:port` for its TCP socket, `clamd:///absolute/path` for its unix socket. Anything else is a
// configuration mistake and refused when the scanner is made, never discovered at the first upload.
import { invalidOption } from '../../config/option-errors.js';

/** clamd's conventional TCP port, used when a `clamd://host` URL names none. */
export const CLAMD_DEFAULT_PORT = 3310;

export type ClamdAddress =
  { transport: 'tcp'; host: string; port: number } | { transport: 'unix'; path: string };

const EXPECTED = 'clamd://host:port or clamd:///path/to/socket';

/**
 * Parses a clamd URL into what `net.connect` needs. `owner` and `option` name the option in the
 * OPTION_INVALID error (`clamdScanner(): url must be …`).
 */
export function parseClamdUrl(url: unknown, owner = 'clamdScanner()', option = 'url'): ClamdAddress {
  const refuse = (detail: string) => invalidOption(owner, option, EXPECTED, detail);
  if (typeof url !== 'string' || url === '') throw refuse(`got ${describe(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`got "${url}", which is not a URL`);
  }
  if (parsed.protocol !== 'clamd:') throw refuse(`got the scheme "${parsed.protocol}"`);
  if (!url.startsWith('clamd://')) throw refuse(`got "${url}": the scheme is followed by two slashes`);
  // Credentials, queries and fragments mean nothing to clamd: a URL carrying them was meant for something else.
  if (parsed.username !== '' || parsed.password !== '') throw refuse('clamd takes no user or password');
  if (parsed.search !== '' || parsed.hash !== '') throw refuse('clamd takes no query or fragment');

  if (parsed.hostname === '') {
    if (parsed.port !== '') throw refuse('a unix socket has no port');
    const socketPath = decodeURIComponent(parsed.pathname);
    if (!socketPath.startsWith('/') || socketPath === '/' || socketPath.endsWith('/')) {
      throw refuse(`got "${url}", which names no socket file`);
    }
    if (socketPath.includes('\0')) throw refuse('a socket path has no NUL byte');
    return { transport: 'unix', path: socketPath };
  }

  if (parsed.pathname !== '' && parsed.pathname !== '/') {
    throw refuse(`got "${url}": a TCP address has no path (a unix socket is clamd:///path, three slashes)`);
  }
  const port = parsed.port === '' ? CLAMD_DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw refuse(`got the port "${parsed.port}"`);
  // The URL parser keeps IPv6 literals in brackets; net.connect wants them bare.
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return { transport: 'tcp', host, port };
}

/** The address as a short string for logs: `127.0.0.1:3310` or `unix:/run/clamd.ctl`. */
export function describeClamdAddress(address: ClamdAddress): string {
  if (address.transport === 'unix') return `unix:${address.path}`;
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

function describe(value: unknown): string {
  if (value === '') return 'an empty string';
  return value === null ? 'null' : typeof value;
}
