// serveMcpStdio: newline-delimited JSON-RPC, at most
// `maxConcurrentRequests` calls at once (the next one answered -32000 SERVER_BUSY), notifications never
// refused, a capped line length, a capped batch, unfiltered listings, headers for every call, cancellation.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  mcpPlugin,
  route,
  serveMcpStdio,
  toolSignal,
  type App,
  type McpStdioServer,
} from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

interface Wire {
  input: PassThrough;
  /** What the slow tool's handler saw. */
  seen: { aborted?: boolean };
  server: McpStdioServer;
  /** Sends one line. */
  send(message: unknown): void;
  /** The next `count` messages the server wrote. */
  read(count: number): Promise<unknown[]>;
}

let apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
});

/** A gate a slow tool waits on, so a test decides when calls finish. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Negotiates 2025-03-26, the only version under which batches are accepted, and reads the answer. */
async function initializeForBatches(wire: Wire, id: number): Promise<void> {
  wire.send(
    request(id, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    }),
  );
  await wire.read(1);
}

async function start(options: Parameters<typeof serveMcpStdio>[1] = {}, slow = gate()): Promise<Wire> {
  const seen: { aborted?: boolean } = {};
  const app = createApp({ name: 'stdio-test', version: '1.2.3' });
  app.register(mcpPlugin());
  app.register(
    fastifyPlugin({
      onError: false,
      allowUnguardedMeta: ['auth'],
      routes: [
        route({
          method: 'GET',
          url: '/echo',
          meta: { mcp: true },
          handler: ({ request }) => ({ authorization: request.headers.authorization ?? null }),
        }),
        route({
          method: 'GET',
          url: '/private',
          meta: { mcp: true, auth: true },
          handler: () => ({ ok: true }),
        }),
        route({
          method: 'POST',
          url: '/slow',
          meta: { mcp: true },
          handler: async ({ request }) => {
            const signal = toolSignal(request);
            await Promise.race([
              slow.opened,
              new Promise((resolve) => signal?.addEventListener('abort', resolve)),
            ]);
            seen.aborted = signal?.aborted;
            return { done: true };
          },
        }),
      ],
    }),
  );
  apps.push(app);
  const input = new PassThrough();
  const output = new PassThrough();
  const server = await serveMcpStdio(app, { input, output, ...options });
  const queue: unknown[] = [];
  let buffered = '';
  let wake: (() => void) | undefined;
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      queue.push(JSON.parse(buffered.slice(0, newline)));
      buffered = buffered.slice(newline + 1);
    }
    wake?.();
  });
  return {
    input,
    seen,
    server,
    send: (message) => input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    async read(count) {
      while (queue.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return queue.splice(0, count);
    },
  };
}

const request = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, params });

describe('serveMcpStdio', () => {
  it('answers initialize, ping and an unfiltered tools/list on stdout, one JSON message per line', async () => {
    const wire = await start();
    wire.send(
      request(1, 'initialize', {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    wire.send(request(2, 'ping'));
    wire.send(request(3, 'tools/list'));
    const [init, ping, list] = await wire.read(3);
    expect(init).toMatchObject({
      id: 1,
      result: { protocolVersion: '2024-11-05', serverInfo: { name: 'stdio-test', version: '1.2.3' } },
    });
    expect(ping).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // The private tool is listed although nobody is signed in: stdio listings are not filtered.
    expect((list as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual(
      ['get_echo', 'get_private', 'post_slow'],
    );
  });

  it('sends the configured headers with every call, and still runs the guards', async () => {
    const wire = await start({ headers: { authorization: 'Bearer abc' } });
    wire.send(request(1, 'tools/call', { name: 'get_echo', arguments: {} }));
    const [echo] = await wire.read(1);
    expect(echo).toMatchObject({ result: { structuredContent: { authorization: 'Bearer abc' } } });
  });

  it('answers a malformed line with a parse error and an invalid message with -32600, then goes on', async () => {
    const wire = await start();
    wire.send('{not json');
    wire.send({ jsonrpc: '2.0', id: 'x', method: 42 });
    wire.send(request(3, 'ping'));
    const [parse, invalid, ping] = await wire.read(3);
    expect(parse).toMatchObject({ id: null, error: { code: -32700 } });
    expect(invalid).toMatchObject({ id: 'x', error: { code: -32600 } });
    expect(ping).toMatchObject({ id: 3, result: {} });
  });

  it('discards a line over maxLineBytes with a parse error and reads the next line', async () => {
    const wire = await start({ maxLineBytes: 64 });
    wire.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(200) } });
    wire.send(request(2, 'ping'));
    const [tooLong, ping] = await wire.read(2);
    expect(tooLong).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringContaining('64 bytes') },
    });
    expect(ping).toMatchObject({ id: 2, result: {} });
  });

  it('runs at most maxConcurrentRequests calls; one more gets -32000 SERVER_BUSY, notifications pass', async () => {
    const slow = gate();
    const wire = await start({ maxConcurrentRequests: 2 }, slow);
    wire.send(request(1, 'tools/call', { name: 'post_slow', arguments: {} }));
    wire.send(request(2, 'tools/call', { name: 'post_slow', arguments: {} }));
    wire.send(request(3, 'ping'));
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const [busy] = await wire.read(1);
    expect(busy).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, message: 'Server is busy.', data: { code: 'SERVER_BUSY' } },
    });
    slow.open();
    const done = await wire.read(2);
    expect(done.map((message) => (message as { id: number }).id).sort()).toEqual([1, 2]);
    // Capacity is back once they finished.
    wire.send(request(4, 'ping'));
    expect(await wire.read(1)).toEqual([{ jsonrpc: '2.0', id: 4, result: {} }]);
  });

  it('runs 16 calls at once by default: the 17th is SERVER_BUSY', async () => {
    const slow = gate();
    const wire = await start({}, slow);
    for (let id = 1; id <= 17; id++)
      wire.send(request(id, 'tools/call', { name: 'post_slow', arguments: {} }));
    expect(await wire.read(1)).toMatchObject([{ id: 17, error: { code: -32000 } }]);
    slow.open();
    const done = await wire.read(16);
    expect(done.every((message) => 'result' in (message as object))).toBe(true);
  });

  it('answers a cancelled call at once with -32800 and aborts toolSignal', async () => {
    const wire = await start();
    wire.send(request(7, 'tools/call', { name: 'post_slow', arguments: {} }));
    wire.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'user' },
    });
    const [cancelled] = await wire.read(1);
    expect(cancelled).toMatchObject({ id: 7, error: { code: -32800 } });
    // The handler saw the abort through toolSignal and returned; its late answer is not sent.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(wire.seen.aborted).toBe(true);
  });

  it('refuses batches unless 2025-03-26 was negotiated', async () => {
    const wire = await start();
    wire.send([request(1, 'ping'), request(2, 'ping')]);
    expect(await wire.read(1)).toMatchObject([{ id: null, error: { code: -32600 } }]);
    await initializeForBatches(wire, 3);
    wire.send([
      request(4, 'ping'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      request(5, 'ping'),
    ]);
    expect(await wire.read(1)).toEqual([
      [
        { jsonrpc: '2.0', id: 4, result: {} },
        { jsonrpc: '2.0', id: 5, result: {} },
      ],
    ]);
  });

  it('answers a batch past maxBatchSize (default 32) whole with -32600, running none of it', async () => {
    const wire = await start();
    await initializeForBatches(wire, 1);
    const pings = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => request(from + i, 'ping'));
    wire.send(pings(33, 100));
    expect(await wire.read(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'A JSON-RPC batch may hold at most 32 messages.' },
      },
    ]);
    wire.send(pings(32, 200));
    const [answers] = (await wire.read(1)) as [unknown[]];
    expect(answers).toHaveLength(32);
  });

  it('takes maxBatchSize', async () => {
    const wire = await start({ maxBatchSize: 2 });
    await initializeForBatches(wire, 1);
    wire.send([request(2, 'ping'), request(3, 'ping'), request(4, 'ping')]);
    expect(await wire.read(1)).toMatchObject([{ id: null, error: { code: -32600 } }]);
    wire.send([request(5, 'ping'), request(6, 'ping')]);
    expect(await wire.read(1)).toMatchObject([[{ id: 5 }, { id: 6 }]]);
  });

  it('finishes once the input ends and every running call was answered', async () => {
    const slow = gate();
    const wire = await start({}, slow);
    wire.send(request(1, 'tools/call', { name: 'post_slow', arguments: {} }));
    wire.input.end();
    let finished = false;
    void wire.server.finished.then(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(finished).toBe(false);
    slow.open();
    await wire.server.finished;
    expect(await wire.read(1)).toMatchObject([{ id: 1, result: { structuredContent: { done: true } } }]);
  });

  it('refuses bad options', async () => {
    const app = createApp();
    app.register(mcpPlugin());
    apps.push(app);
    await expect(serveMcpStdio(app, { maxConcurrentRequests: 0 })).rejects.toThrow(TypeError);
  });
});
