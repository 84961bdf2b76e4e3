// svc's own /mcp endpoint against the official conformance runner (@modelcontextprotocol/conformance), on
// every adapter: the scenarios for initialize, ping, tools-list, the session lifecycle and DNS-rebinding
// protection must report only SUCCESS checks. No expected-failure entries are needed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpPlugin, mcpRoutes, route } from 'svckit';
import { adapters, type RunningServer } from '../../http/harness.js';
import { EXPECTED_CHECK_IDS, summary } from './expected-checks.js';
import { runConformance } from './run-conformance.js';

// Each scenario is a node process of its own and CI runs other suites beside them: generous limits
// (runConformance kills a run after 45 s).
vi.setConfig({ testTimeout: 60_000 });

const routes = [
  route({
    method: 'GET',
    url: '/status',
    meta: { mcp: { description: 'Tells whether the service is up.' } },
    handler: () => ({ up: true }),
  }),
  route({
    method: 'POST',
    url: '/things/:id/tags',
    params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    body: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    meta: { mcp: true, summary: 'Tag a thing' },
    handler: ({ params, body }) => ({ ...(params as object), ...(body as object) }),
  }),
  ...mcpRoutes(),
];

describe.each(adapters)('MCP conformance scenarios against svc on $name', (adapter) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await adapter.start({
      routes,
      plugins: [mcpPlugin({ serverInfo: { name: 'svc-conformance', version: '1.0.0' } })],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.concurrent.each(Object.entries(EXPECTED_CHECK_IDS))('passes %s', async (scenario, expectedIds) => {
    // Generous limits: each scenario is a node process of its own, and CI runs other suites beside it.
    const result = await runConformance({ url: `${server.url}/mcp`, scenario });
    const context = `${scenario}\n${summary(result.checks)}\n${result.stderr}`;
    expect(result.timedOut, context).toBe(false);
    expect(result.skipped, context).toBe(false);
    expect(result.blockedConnections, context).toEqual([]);
    expect(result.exitCode, context).toBe(0);
    expect(result.checks.map((check) => check.id).sort(), context).toEqual([...expectedIds].sort());
    for (const check of result.checks) expect(check.status, `${check.id}\n${context}`).toBe('SUCCESS');
  });
});
