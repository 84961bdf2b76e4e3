// Preload that confines every outgoing TCP/TLS connection of the runner process to the server under
// test. Server scenarios only need the URL they are given; the runner also bundles @octokit/rest
// (used by `tier-check` / `new-sep`, never by `server`), and scenario code references public URLs, so
// this turns any accidental reach for the network into a loud failure instead of a silent request.
//
// MCP_CONFORMANCE_ALLOW_CONNECT: comma-separated `host:port` pairs that may be dialled (the harness
// passes the target URL's). Unset: any port on a loopback host. Unix-socket/pipe paths are allowed.
import net from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

const allowList = (process.env.MCP_CONFORMANCE_ALLOW_CONNECT ?? '')
  .split(',')
  .map((entry) => entry.trim().toLowerCase())
  .filter((entry) => entry !== '');

function normaliseHost(host) {
  const lower = String(host).toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

function isAllowed(host, port) {
  const bare = normaliseHost(host);
  if (allowList.length === 0) return LOOPBACK_HOSTS.has(bare) || bare.startsWith('127.');
  return allowList.some((entry) => {
    const separator = entry.lastIndexOf(':');
    return normaliseHost(entry.slice(0, separator)) === bare && entry.slice(separator + 1) === String(port);
  });
}

// Socket#connect accepts (options[, cb]), (port[, host][, cb]), (path[, cb]) and, from net.connect,
// an internal pre-normalised [options, cb] array; every client (http, fetch/undici, tls) ends up here.
function targetOf(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') {
    if (typeof first.path === 'string') return undefined; // http passes `path: null` for TCP
    return { host: first.host ?? 'localhost', port: first.port };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
  }
  return undefined;
}

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  const target = targetOf(args);
  if (target !== undefined && !isAllowed(target.host, target.port)) {
    const message = `blocked connection to ${target.host}:${target.port} (only ${allowList.join(', ') || 'loopback'} allowed)`;
    // A stable stderr marker so the harness can report attempts even if the caller swallows the error.
    process.stderr.write(`[loopback-only] ${message}\n`);
    const error = Object.assign(new Error(`loopback-only: ${message}`), { code: 'ERR_LOOPBACK_ONLY' });
    // Fail the way a refused connection does (asynchronously, via 'error'), which every client handles.
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return originalConnect.apply(this, args);
};
