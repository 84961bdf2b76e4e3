// McpClient + StdioClientTransport against a real official-SDK server spawned over stdio: tools, the child's
// environment, a server that exits mid-call (and the respawn), a missing command, an over-long line, close.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  McpClient,
  StdioClientTransport,
  type StdioServerParameters,
} from '../../../runtime/mcp/client/index.js';
import { fixtureServer, isAlive } from './fixtures/stdio-params.js';

const scratch = mkdtempSync(join(tmpdir(), 'svc-mcp-stdio-'));
const SECRET = 'SVC_MCP_CLIENT_TEST_SECRET';

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(() => {
  delete process.env[SECRET];
  rmSync(scratch, { recursive: true, force: true });
});

function open(extra: Partial<StdioServerParameters> = {}, timeoutMs = 15_000) {
  const transport = new StdioClientTransport(fixtureServer(extra));
  const client = new McpClient(transport, { timeoutMs });
  clients.push(client);
  return { client, transport };
}

async function text(client: McpClient, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await client.callTool(tool, args);
  return (result.content[0] as { text: string }).text;
}

describe('StdioClientTransport against the SDK stdio server', () => {
  it('lists and calls tools (the non-JSON line the server prints first is skipped)', async () => {
    const { client, transport } = open();
    const info = await client.connect();
    expect(info.serverInfo.name).toBe('sdk-stdio');
    expect(transport.pid).toBe(Number(await text(client, 'pid')));
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(await text(client, 'echo', { text: 'line\nbreak "quoted"' })).toBe('line\nbreak "quoted"');
    const failed = await client.callTool('fail');
    expect(failed.isError).toBe(true);
  });

  it('the child sees only the default variables, named inheritEnv ones and env', async () => {
    process.env[SECRET] = 'do-not-leak';
    const envOf = async (extra: Partial<StdioServerParameters>) => {
      const { client } = open(extra);
      return JSON.parse(await text(client, 'env')) as Record<string, string>;
    };
    const [plain, named, all] = await Promise.all([
      envOf({ env: { GIVEN: 'given-value' } }),
      envOf({ inheritEnv: [SECRET] }),
      envOf({ inheritEnv: true }),
    ]);
    expect(plain[SECRET]).toBeUndefined();
    expect(plain.GIVEN).toBe('given-value');
    expect(plain.PATH).toBe(process.env.PATH);
    // Nothing beyond the defaults and env reached the child (node may add a few of its own, e.g. for tsx).
    const parentOnly = Object.keys(process.env).filter(
      (name) =>
        !['PATH', 'HOME', 'LANG', 'TMPDIR', 'TMP', 'TEMP', 'TZ'].includes(name) && !name.startsWith('LC_'),
    );
    expect(parentOnly.filter((name) => name in plain && plain[name] === process.env[name])).toEqual([]);
    expect(named[SECRET]).toBe('do-not-leak');
    expect(named.GIVEN).toBeUndefined();
    expect(all[SECRET]).toBe('do-not-leak');
    expect(Object.keys(all).length).toBeGreaterThanOrEqual(Object.keys(process.env).length);
  });

  it('a server exiting mid-call rejects every call in flight with MCP_SERVER_EXITED; the next call respawns', async () => {
    const { client } = open();
    const firstPid = Number(await text(client, 'pid'));
    const sleeping = expect(client.callTool('sleep', { ms: 10_000 })).rejects.toMatchObject({
      code: 'MCP_SERVER_EXITED',
    });
    const error = await client.callTool('exit', { code: 3 }).catch((caught: unknown) => caught);
    await sleeping;
    expect(error).toMatchObject({
      code: 'MCP_SERVER_EXITED',
      status: 502,
      details: { exitCode: 3, signal: null },
      internalDetails: { stderr: expect.stringContaining('about to exit on purpose') },
    });
    expect(isAlive(firstPid)).toBe(false);
    const secondPid = Number(await text(client, 'pid'));
    expect(secondPid).not.toBe(firstPid);
    expect(await text(client, 'echo', { text: 'again' })).toBe('again');
  });

  it('a missing command rejects with MCP_SERVER_EXITED, and every later call tries again', async () => {
    const transport = new StdioClientTransport({ command: join(scratch, 'no-such-server') });
    const client = new McpClient(transport);
    clients.push(client);
    const expected = { code: 'MCP_SERVER_EXITED', details: { spawnError: 'ENOENT', exitCode: null } };
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject(expected);
    await expect(client.listTools()).rejects.toMatchObject(expected);
  });

  it('a line past maxLineBytes stops the child with MCP_SERVER_FAILED; the next call respawns', async () => {
    const { client, transport } = open({ maxLineBytes: 4096 });
    const firstPid = Number(await text(client, 'pid'));
    await expect(client.callTool('big', { bytes: 10_000 })).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { maxLineBytes: 4096 },
    });
    await expect.poll(() => isAlive(firstPid)).toBe(false);
    expect(await text(client, 'big', { bytes: 100 })).toHaveLength(100);
    expect(transport.pid).not.toBe(firstPid);
  });

  it('close() ends the child (stdin closed, it exits) and later calls reject MCP_CLIENT_CLOSED', async () => {
    const pidFile = join(scratch, 'close.pid');
    const { client, transport } = open({ env: { PID_FILE: pidFile } });
    await client.connect();
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(transport.pid).toBe(pid);
    expect(isAlive(pid)).toBe(true);
    // A call in flight while closing rejects at once; the server finishes it and leaves on stdin's end.
    const inFlight = client.callTool('sleep', { ms: 300 });
    const rejected = expect(inFlight).rejects.toMatchObject({ code: 'MCP_CLIENT_CLOSED' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await client.close();
    await rejected;
    expect(Date.now() - started).toBeLessThan(1900); // no signal was needed
    expect(isAlive(pid)).toBe(false);
    expect(transport.pid).toBeUndefined();
    await expect(client.callTool('pid')).rejects.toMatchObject({ code: 'MCP_CLIENT_CLOSED' });
  });

  it('close() escalates to SIGTERM when the server ignores the end of stdin', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', 'process.stdin.resume(); process.stdin.on("end", () => {}); setInterval(() => {}, 1000)'],
      stderr: 'ignore',
    });
    await transport.start();
    const pid = transport.pid!;
    expect(isAlive(pid)).toBe(true);
    const started = Date.now();
    await transport.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(isAlive(pid)).toBe(false);
  });

  it('rejects bad options with a TypeError naming the option', () => {
    expect(() => new StdioClientTransport({ command: '' })).toThrow(/command/);
    expect(() => new StdioClientTransport({ command: 'x', args: [1 as unknown as string] })).toThrow(/args/);
    expect(
      () => new StdioClientTransport({ command: 'x', inheritEnv: 'PATH' as unknown as string[] }),
    ).toThrow(/inheritEnv/);
    expect(() => new StdioClientTransport({ command: 'x', env: { A: 1 as unknown as string } })).toThrow(
      /env\.A/,
    );
    expect(() => new StdioClientTransport({ command: 'x', stderr: 'file' as 'pipe' })).toThrow(/stderr/);
    expect(() => new StdioClientTransport({ command: 'x', shell: true } as StdioServerParameters)).toThrow(
      /unknown option "shell"/,
    );
  });
});
