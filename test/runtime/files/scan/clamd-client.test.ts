// One INSTREAM scan against a real clamd (test/helpers/clamd.ts) and against hand-written servers that
// misbehave: only clamd's exact `OK`, after the whole stream, is ever a clean outcome.
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clamdInstream, parseClamdUrl, type ClamdAddress } from '../../../../runtime/files/scan/index.js';
import { startClamd, TEST_STREAM_MAX_LENGTH, type TestClamd } from '../../../helpers/clamd.js';

/** Not malware: a byte string the test signature matches, as EICAR is for real engines. */
const MARKER = Buffer.from('svc-scan-test: this marker stands in for malware');
const SIGNATURE = 'Svc.Test.Marker';

let clamd: TestClamd;
let tcp: ClamdAddress;

beforeAll(async () => {
  clamd = await startClamd({ signatures: [{ name: SIGNATURE, bytes: MARKER }] });
  tcp = parseClamdUrl(clamd.url);
});
afterAll(() => clamd?.stop());

const options = { timeoutMs: 5_000 };

describe('clamdInstream against clamd', () => {
  it('reports the signature name of a file carrying the marker', async () => {
    const content = Buffer.concat([Buffer.alloc(10_000, 'a'), MARKER, Buffer.alloc(10_000, 'b')]);
    await expect(clamdInstream(tcp, content, options)).resolves.toEqual({
      status: 'infected',
      signature: `${SIGNATURE}.UNOFFICIAL`,
    });
  });

  it('finds the marker split across source chunks and across the 64 KiB INSTREAM chunks', async () => {
    // The marker starts 10 bytes before the 64 KiB boundary, and the source splits it elsewhere again.
    const content = Buffer.concat([Buffer.alloc(64 * 1024 - 10, 'x'), MARKER, Buffer.alloc(70_000, 'y')]);
    const source = Readable.from([
      content.subarray(0, 30_000),
      content.subarray(30_000, 65_540),
      content.subarray(65_540),
    ]);
    const outcome = await clamdInstream(tcp, source, options);
    expect(outcome).toEqual({ status: 'infected', signature: `${SIGNATURE}.UNOFFICIAL` });
  });

  it('reports a file without the marker clean, over TCP and over the unix socket', async () => {
    const content = Buffer.from('an ordinary text file\n');
    await expect(clamdInstream(tcp, content, options)).resolves.toEqual({ status: 'clean' });
    await expect(clamdInstream(parseClamdUrl(clamd.socketUrl), content, options)).resolves.toEqual({
      status: 'clean',
    });
    await expect(clamdInstream(tcp, Buffer.alloc(0), options)).resolves.toEqual({ status: 'clean' });
  });

  it('reports clamd refusing a stream over its StreamMaxLength as too large', async () => {
    // clamd answers its size-limit line and closes at once; if the next chunk is written in that instant, the
    // reset can reach the socket before the answer is read, and the scan is an error (still not clean). Only
    // that race is retried.
    const content = Buffer.alloc(TEST_STREAM_MAX_LENGTH + 1, 'z');
    let outcome = await clamdInstream(tcp, content, options);
    for (
      let retry = 0;
      retry < 3 && outcome.status === 'error' && /EPIPE|ECONNRESET/.test(outcome.message);
      retry++
    ) {
      outcome = await clamdInstream(tcp, content, options);
    }
    expect(outcome).toEqual({ status: 'too-large', message: 'clamd: StreamMaxLength exceeded' });
    // Exactly StreamMaxLength still fits.
    await expect(clamdInstream(tcp, Buffer.alloc(TEST_STREAM_MAX_LENGTH, 'z'), options)).resolves.toEqual({
      status: 'clean',
    });
  });

  it('stops at its own maxStreamBytes without sending the rest, and destroys the source', async () => {
    let pulled = 0;
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 100; i++) {
          pulled += 64 * 1024;
          yield Buffer.alloc(64 * 1024, 'q');
        }
      })(),
    );
    const outcome = await clamdInstream(tcp, source, { ...options, maxStreamBytes: 200_000 });
    expect(outcome.status).toBe('too-large');
    expect(pulled).toBeLessThan(100 * 64 * 1024);
    expect(source.destroyed).toBe(true);
  });

  it('answers unavailable at once for a closed port and for a missing socket file', async () => {
    const closed = await listen(() => undefined);
    const port = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
    const started = Date.now();
    const outcome = await clamdInstream(
      { transport: 'tcp', host: '127.0.0.1', port },
      Buffer.from('x'),
      options,
    );
    expect(outcome).toMatchObject({ status: 'unavailable' });
    expect(outcome.status === 'unavailable' && outcome.message).toContain('ECONNREFUSED');
    const missing = await clamdInstream(
      { transport: 'unix', path: '/nonexistent/clamd.sock' },
      Buffer.from('x'),
      options,
    );
    expect(missing).toMatchObject({ status: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('clamdInstream against servers that are not a working clamd', () => {
  const servers: Server[] = [];
  const connections: Socket[] = [];
  afterEach(async () => {
    // A server socket that never reads never sees the client go: close it here.
    for (const socket of connections.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A server on 127.0.0.1:0 calling `onConnection` for each client; closed after the test. */
  async function fakeClamd(onConnection: (socket: Socket) => void): Promise<ClamdAddress> {
    const server = await listen((socket) => {
      connections.push(socket);
      onConnection(socket);
    });
    servers.push(server);
    return { transport: 'tcp', host: '127.0.0.1', port: portOf(server) };
  }

  it('times out within timeoutMs when the server takes the stream and never answers, and closes the socket', async () => {
    let serverSideClosed: Promise<unknown> | undefined;
    const address = await fakeClamd((socket) => {
      serverSideClosed = once(socket, 'close');
      socket.resume();
    });
    const started = Date.now();
    const outcome = await clamdInstream(address, Buffer.from('hello'), { timeoutMs: 200 });
    const elapsed = Date.now() - started;
    expect(outcome).toMatchObject({ status: 'timeout', stage: 'reply' });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_500);
    await serverSideClosed;
  });

  it('times out while sending when the server never reads, without reading the whole source', async () => {
    const address = await fakeClamd((socket) => socket.pause());
    let pulled = 0;
    const total = 64 * 1024 * 1024;
    const source = Readable.from(
      (function* () {
        for (let sent = 0; sent < total; sent += 64 * 1024) {
          pulled += 64 * 1024;
          yield Buffer.alloc(64 * 1024);
        }
      })(),
    );
    const outcome = await clamdInstream(address, source, { timeoutMs: 200 });
    expect(outcome).toMatchObject({ status: 'timeout', stage: 'send' });
    // Backpressure: only what the socket buffers took was read from the source.
    expect(pulled).toBeLessThan(total / 4);
    expect(source.destroyed).toBe(true);
  });

  it('never reports clean for an OK sent before the end of the stream', async () => {
    const address = await fakeClamd((socket) => {
      socket.once('data', () => socket.write('stream: OK\0'));
    });
    const source = Readable.from(
      (async function* () {
        yield Buffer.alloc(1024, 'a');
        await new Promise((resolve) => setTimeout(resolve, 50));
        yield Buffer.alloc(1024, 'b');
      })(),
    );
    const outcome = await clamdInstream(address, source, options);
    expect(outcome).toMatchObject({ status: 'error' });
  });

  it.each([
    ['an unexpected line', 'stream: MAYBE\0'],
    ['an error line', 'INSTREAM: Can not allocate memory ERROR\0'],
    ['OK without its terminator, then a close', 'stream: OK'],
    ['nothing, then a close', ''],
  ])('reports an error, never clean, for %s', async (_label, reply) => {
    const address = await fakeClamd((socket) => {
      socket.on('data', (data: Buffer) => {
        // Answer once the zero-length terminator has arrived.
        if (data.subarray(-4).equals(Buffer.alloc(4))) socket.end(reply);
      });
    });
    const outcome = await clamdInstream(address, Buffer.from('hello'), options);
    expect(outcome.status).toBe('error');
  });

  it('reports an error, and closes the connection, when the source fails', async () => {
    let serverSideClosed: Promise<unknown> | undefined;
    const address = await fakeClamd((socket) => {
      serverSideClosed = once(socket, 'close');
      socket.resume();
    });
    const source = new Readable({
      read() {
        this.destroy(new Error('disk on fire'));
      },
    });
    const outcome = await clamdInstream(address, source, options);
    expect(outcome).toEqual({ status: 'error', message: 'reading the file failed: disk on fire' });
    await serverSideClosed;
  });
});

async function listen(onConnection: (socket: Socket) => void): Promise<Server> {
  const server = createServer(onConnection);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('not listening');
  return address.port;
}
