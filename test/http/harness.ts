// The adapter matrix: every suite in test/http runs once per adapter under test (Fastify, Express, Hono),
// over real HTTP on loopback.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createApp, HttpError, type AdapterOptions, type Plugin, type Route } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { honoPlugin } from 'svckit/hono';
import { expressPlugin } from 'svckit/express';

export interface StartInput {
  routes: Route[];
  plugins?: Plugin[];
  /** Adapter options common to every adapter (allowUnguardedMeta, notFound, onError). */
  options?: Record<string, unknown>;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export interface AdapterUnderTest {
  name: string;
  start(input: StartInput): Promise<RunningServer>;
}

/** An adapter entry: a test app with the given plugins, served by `plugin(options)` on a free loopback port. */
function adapterUnderTest(name: string, plugin: (options: AdapterOptions) => Plugin): AdapterUnderTest {
  return {
    name,
    async start({ routes, plugins = [], options = {} }) {
      const app = createApp({ name: 'test' });
      for (const extra of plugins) app.register(extra);
      app.register(plugin({ onError: false, ...options, routes }));
      try {
        const address = await app.listen({ port: 0, host: '127.0.0.1' });
        return { url: address.url, close: () => app.close() };
      } catch (error) {
        await app.close();
        throw error;
      }
    },
  };
}

export const adapters: AdapterUnderTest[] = [
  adapterUnderTest('fastify', fastifyPlugin),
  adapterUnderTest('express', expressPlugin),
  adapterUnderTest('hono', honoPlugin),
];

/**
 * Rejects every application request with 401 and counts enricher runs, so a test can show that edge routes
 * skip both while the app's own routes stay guarded.
 */
export function denyAllPlugin(counter: { enriched: number } = { enriched: 0 }): Plugin {
  return {
    name: 'deny-all',
    setup(app) {
      app.metadata.add('http:enrichers', {
        name: 'count',
        enrich: () => {
          counter.enriched++;
        },
      });
      app.metadata.add('http:guards', {
        name: 'deny-all',
        check: () => {
          throw new HttpError(401, 'AUTH_REQUIRED', 'Authentication required.');
        },
      });
    },
  };
}

/** Starts a server for the duration of one test body and closes it afterwards, even when the body throws. */
export async function withServer<T>(
  adapter: AdapterUnderTest,
  input: StartInput,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const server = await adapter.start(input);
  try {
    return await body(server.url);
  } finally {
    await server.close();
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request through node:http, for what fetch will not send (bodies on GET, odd methods, exact headers). */
export function rawRequest(
  url: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** The client address to send from (any of 127.0.0.0/8 on Linux): the server's `request.ip`. */
    localAddress?: string;
  },
): Promise<RawResponse> {
  const target = new URL(url);
  // Node sends GET/DELETE bodies without framing unless told the length; always frame them.
  const headers = { ...options.headers };
  if (
    options.body !== undefined &&
    !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')
  ) {
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method,
        path: options.path,
        headers,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Writes bytes on a fresh TCP connection and returns everything the server sends until it closes. */
export function rawSocket(url: string, bytes: string | Buffer): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(error);
    });
    socket.write(bytes);
  });
}

/** Status line, headers (lower-cased) and body of a raw HTTP/1.1 response. */
export function parseRawResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: split === -1 ? '' : text.slice(split + 4),
  };
}

/** fetch + JSON body (or text when not JSON). */
export async function call(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}
