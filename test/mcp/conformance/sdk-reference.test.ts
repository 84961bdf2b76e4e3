// Proves the Node 20 conformance harness works end to end: a reference server built only from the
// official SDK must pass the five scenarios svc targets, with real SUCCESS checks in checks.json.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXPECTED_CHECK_IDS, summary } from './expected-checks.js';
import { runConformance, spawnConformance } from './run-conformance.js';

// Each scenario is a node process of its own and CI runs other suites beside them: generous limits
// (runConformance kills a run after 45 s).
vi.setConfig({ testTimeout: 60_000 });

interface Reference {
  url: string;
  close(): Promise<void>;
}

/** The SDK's own stateful Streamable-HTTP server, shaped like svc's: JSON responses, sessions, DELETE. */
async function startSdkReferenceServer(): Promise<Reference> {
  // createMcpExpressApp bound to 127.0.0.1 installs the SDK's Host-header validation (403 for
  // non-localhost hosts); without it the SDK has no DNS-rebinding protection at all.
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const transports = new Map<string, StreamableHTTPServerTransport>();

  const sessionError = (status: number, code: number, message: string) => ({
    status,
    body: { jsonrpc: '2.0', error: { code, message }, id: null },
  });

  app.all('/mcp', async (req, res) => {
    const sessionId = req.header('mcp-session-id');
    let transport = sessionId === undefined ? undefined : transports.get(sessionId);
    if (transport === undefined) {
      const rejection =
        sessionId !== undefined
          ? sessionError(404, -32001, 'Session not found') // unknown or terminated session
          : req.method !== 'POST' || !isInitializeRequest(req.body)
            ? sessionError(400, -32000, 'Bad Request: no valid session ID provided')
            : undefined;
      if (rejection !== undefined) {
        res.status(rejection.status).json(rejection.body);
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void transports.set(id, created),
        onsessionclosed: (id) => void transports.delete(id),
      });
      const server = new McpServer({ name: 'sdk-reference', version: '1.0.0' });
      server.registerTool('echo', { description: 'Returns a fixed greeting.' }, () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port that was just free, so connecting to it is refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let reference: Reference;
beforeAll(async () => {
  reference = await startSdkReferenceServer();
});
afterAll(async () => {
  await reference?.close();
});

describe('MCP conformance runner on Node 20 (SDK reference server)', () => {
  it('lists the server scenarios svc targets', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'svckit-conformance-list-'));
    try {
      const run = await spawnConformance(['list', '--server'], { cwd: workDir, timeoutMs: 15_000 });
      expect(run.stderr).not.toContain('globSync');
      expect(run.exitCode).toBe(0);
      for (const scenario of Object.keys(EXPECTED_CHECK_IDS)) {
        expect(run.stdout).toMatch(new RegExp(`^  - ${scenario} \\[`, 'm'));
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  // Scenarios are independent (each opens its own sessions), so run them concurrently to stay fast.
  it.concurrent.each(Object.entries(EXPECTED_CHECK_IDS))('passes %s', async (scenario, expectedIds) => {
    const result = await runConformance({ url: reference.url, scenario });
    const context = `${scenario}\n${summary(result.checks)}\n${result.stderr}`;

    expect(result.timedOut, context).toBe(false);
    expect(result.skipped, context).toBe(false);
    expect(result.blockedConnections, context).toEqual([]);
    expect(result.exitCode, context).toBe(0);
    // Exit 0 also happens when nothing ran; require real SUCCESS checks and no FAILURE/WARNING.
    expect(result.checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')).toEqual(
      [],
    );
    expect(result.checks.map((check) => check.id).sort(), context).toEqual([...expectedIds].sort());
    for (const check of result.checks) expect(check.status, `${check.id}\n${context}`).toBe('SUCCESS');
  });

  it('turns a scenario that does not apply at --spec-version into skipped, not passed', async () => {
    // server-session-lifecycle is removed in 2026-07-28: the runner exits 0 having run nothing.
    const result = await runConformance({
      url: reference.url,
      scenario: 'server-session-lifecycle',
      specVersion: '2026-07-28',
    });
    expect(result.exitCode).toBe(0);
    expect(result.skipped).toBe(true);
    expect(result.checks).toEqual([]);
  });

  it('honours an expected-failures baseline, and flags a stale one', async () => {
    // A passing scenario listed in the baseline is "stale": the runner exits 1 so it gets removed.
    const stale = await runConformance({ url: reference.url, scenario: 'ping', expectedFailures: ['ping'] });
    expect(stale.exitCode).toBe(1);
    expect(stale.stdout).toContain('Stale baseline entries');
    expect(stale.checks.some((check) => check.status === 'SUCCESS')).toBe(true);

    // A real failure (nothing listens on this loopback port) that the baseline excuses exits 0.
    const deadUrl = `http://127.0.0.1:${await closedPort()}/mcp`;
    const excused = await runConformance({ url: deadUrl, scenario: 'ping', expectedFailures: ['ping'] });
    expect(excused.stdout).toContain('Expected failures (in baseline)');
    expect(excused.exitCode).toBe(0);
    expect(excused.checks.map((check) => check.status)).toContain('FAILURE');
  });
});

describe('node20 fs shim globSync', () => {
  it("finds checks.json the way the runner's tier-check asks for them", async () => {
    const root = await mkdtemp(join(tmpdir(), 'svckit-glob-'));
    try {
      for (const dir of ['server-ping-2026', 'server-tools-list-2026/nested', '.hidden']) {
        await mkdir(join(root, dir), { recursive: true });
        await writeFile(join(root, dir, 'checks.json'), '[]');
      }
      await writeFile(join(root, 'checks.json'), '[]');
      await writeFile(join(root, 'server-ping-2026', 'other.json'), '[]');

      // A computed specifier: the .mjs module carries no types, so its exports are narrowed below.
      const shimUrl = new URL('./node20-fs-shim.mjs', import.meta.url).href;
      const shim: unknown = await import(shimUrl);
      const globSync = typeof shim === 'object' && shim !== null ? Reflect.get(shim, 'globSync') : undefined;
      if (typeof globSync !== 'function') throw new Error('node20-fs-shim.mjs does not export globSync');

      const found: unknown = globSync('**/checks.json', { cwd: root });
      expect(Array.isArray(found) ? [...found].sort() : found).toEqual(
        [
          'checks.json',
          join('server-ping-2026', 'checks.json'),
          join('server-tools-list-2026', 'nested', 'checks.json'),
        ].sort(),
      );
      expect(() => globSync('{a,b}/*.json', { cwd: root })).toThrow(/only supports/);
      expect(() => globSync('*.json', { cwd: root, withFileTypes: true })).toThrow(/unsupported option/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
