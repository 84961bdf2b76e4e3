// The size cap of a provider's reply (callProvider): a reply is read chunk by chunk and given up as soon as
// it passes 1 MiB, whatever its headers say. A chunked reply from a loopback server streaming far more is
// refused while the server is still writing, and the connection is closed on it; a Content-Length that is not
// a whole number is refused before the body is read; a body longer than its Content-Length is counted all the
// same. Replies under the cap still parse, UTF-8 split across chunks included.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callProvider } from '../../../runtime/auth/oauth/http.js';
import type { ProviderContext } from '../../../runtime/auth/oauth/types.js';

const CAP = 1024 * 1024;
const CHUNK = 64 * 1024;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

function context(fetch: typeof globalThis.fetch = globalThis.fetch): ProviderContext {
  return { fetch, timeoutMs: 10_000, clock: Date.now };
}

interface Stream {
  url: string;
  /** Bytes handed to the socket so far. */
  written: () => number;
  /** True once every offered byte was written and the reply ended. */
  finished: () => boolean;
  /** Settles when the reply's connection is closed, by either side. */
  closed: Promise<void>;
}

/** A loopback server answering every request with `total` bytes of JSON whitespace, chunked, no length. */
async function streamingServer(total: number): Promise<Stream> {
  let written = 0;
  let finished = false;
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const piece = Buffer.alloc(CHUNK, ' ');
  const server = createServer((_request, response) => {
    response.on('close', onClosed);
    response.writeHead(200, { 'content-type': 'application/json' });
    const write = (): void => {
      while (written < total) {
        if (response.destroyed) return;
        written += piece.length;
        if (!response.write(piece)) {
          response.once('drain', write);
          return;
        }
      }
      finished = true;
      response.end();
    };
    write();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/jwks`, written: () => written, finished: () => finished, closed };
}

/** A body of `total` bytes in `chunk`-sized pieces, counting what was pulled and whether it was cancelled. */
function countedBody(total: number, chunk = CHUNK) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= total) return controller.close();
      const size = Math.min(chunk, total - seen.pulled);
      seen.pulled += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

const answering = (response: () => Response) => (async () => response()) as typeof globalThis.fetch;

describe('callProvider reply size', () => {
  it('gives up a chunked reply without Content-Length as it passes the cap, closing the connection', async () => {
    const offered = 64 * 1024 * 1024;
    const stream = await streamingServer(offered);
    let finishedAtRefusal: boolean | undefined;
    await expect(
      callProvider(context(), 'JWKS endpoint', stream.url).finally(() => {
        finishedAtRefusal = stream.finished();
      }),
    ).rejects.toThrow(`JWKS endpoint answered more than ${CAP} bytes`);
    expect(finishedAtRefusal).toBe(false);
    await stream.closed;
    expect(stream.finished()).toBe(false);
    expect(stream.written()).toBeLessThan(offered);
  });

  it('refuses a Content-Length that is not a whole number before reading the body', async () => {
    for (const length of ['abc', '-1', '1e3', '']) {
      const { body, seen } = countedBody(4 * CAP);
      const fetch = answering(() => new Response(body, { headers: { 'content-length': length } }));
      await expect(
        callProvider(context(fetch), 'token endpoint', 'https://idp.example/token'),
        length,
      ).rejects.toThrow(/token endpoint answered an invalid Content-Length/);
      expect(seen.pulled, length).toBeLessThanOrEqual(CHUNK);
      expect(seen.cancelled, length).toBe(true);
    }
    const json = answering(() => new Response('{"a":1}', { headers: { 'content-length': 'abc' } }));
    await expect(callProvider(context(json), 'token endpoint', 'https://idp.example/token')).rejects.toThrow(
      /invalid Content-Length "abc"/,
    );
  });

  it('counts the bytes of a body longer than its Content-Length, and stops reading it at the cap', async () => {
    const { body, seen } = countedBody(8 * CAP);
    const fetch = answering(() => new Response(body, { headers: { 'content-length': '10' } }));
    await expect(callProvider(context(fetch), 'userinfo endpoint', 'https://idp.example/me')).rejects.toThrow(
      `userinfo endpoint answered more than ${CAP} bytes`,
    );
    // A stream may be pulled a chunk or two ahead of the reader.
    expect(seen.pulled).toBeLessThanOrEqual(CAP + 3 * CHUNK);
    expect(seen.cancelled).toBe(true);
  });

  it('refuses a declared length above the cap without reading the body', async () => {
    const { body, seen } = countedBody(2 * CAP);
    const fetch = answering(() => new Response(body, { headers: { 'content-length': String(2 * CAP) } }));
    await expect(callProvider(context(fetch), 'JWKS endpoint', 'https://idp.example/jwks')).rejects.toThrow(
      `JWKS endpoint answered ${2 * CAP} bytes, more than ${CAP}`,
    );
    expect(seen.cancelled).toBe(true);
  });

  it('reads a chunked reply under the cap, UTF-8 split across chunks included', async () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ name: 'Zoë Åström', pad: ' '.repeat(CAP - 100) }),
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // One byte at a time around the name, so its two-byte characters arrive in halves.
        for (let at = 0; at < 30; at += 1) controller.enqueue(bytes.slice(at, at + 1));
        controller.enqueue(bytes.slice(30));
        controller.close();
      },
    });
    const fetch = answering(() => new Response(body, { headers: { 'content-type': 'application/json' } }));
    const reply = await callProvider(context(fetch), 'userinfo endpoint', 'https://idp.example/me');
    expect((reply.json as { name: string }).name).toBe('Zoë Åström');
  });
});
