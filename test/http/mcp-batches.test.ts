// JSON-RPC batches on the endpoint, every adapter: a batch holds at most `maxBatchSize` (32) messages, else the whole batch is answered
// -32600; each request in a batch pays the rate limits its own POST would have paid (the endpoint's
// `rateLimit`, securityPlugin's global limit, a tool route's own `meta.rateLimit`), so one batch of 1,500
// calls no longer runs as one request.
import { describe, expect, it } from 'vitest';
import { route, securityPlugin, type Route } from 'svckit';
import { adapters } from './harness.js';
import { envelope, header, openSession, request, send, withMcp } from './mcp-helpers.js';

interface Answer {
  id: unknown;
  result?: { isError?: boolean; content?: { text: string }[] };
  error?: { code: number; message: string; data?: unknown };
}

const RATE_LIMITED = { code: -32005, message: 'Too many requests.', data: { code: 'RATE_LIMITED' } };

/** A tool that counts its runs. */
function countingTool(meta: Record<string, unknown> = {}): { tool: Route; runs: { count: number } } {
  const runs = { count: 0 };
  const tool = route({
    method: 'GET',
    url: '/count',
    meta: { mcp: true, ...meta },
    handler: () => ({ run: ++runs.count }),
  });
  return { tool, runs };
}

const calls = (count: number, name = 'get_count') =>
  Array.from({ length: count }, (_, i) => request('tools/call', { name, arguments: {} }, `c${i}`));

describe.each(adapters)('JSON-RPC batches on $name', (adapter) => {
  describe('size cap', () => {
    it('answers a batch of 33 (past the default 32) whole with 400 and -32600, running none of it', async () => {
      const { tool, runs } = countingTool();
      await withMcp(adapter, { routes: [tool], endpoint: { sessions: false } }, async (url) => {
        const refused = await send(url, calls(33));
        expect(refused.status).toBe(400);
        expect(refused.json).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'A JSON-RPC batch may hold at most 32 messages.' },
        });
        expect(runs.count).toBe(0);
        const allowed = await send(url, calls(32));
        expect(allowed.status).toBe(200);
        expect(allowed.json).toHaveLength(32);
        expect(runs.count).toBe(32);
      });
    });

    it('is refused before the session is looked up, and mcpRoutes({ maxBatchSize }) sets it', async () => {
      const { tool } = countingTool();
      await withMcp(adapter, { routes: [tool], endpoint: { maxBatchSize: 2 } }, async (url) => {
        // No session header at all: the size is checked first.
        const refused = await send(url, calls(3));
        expect(refused.status).toBe(400);
        expect((refused.json as Answer).error?.code).toBe(-32600);
        const session = await openSession(url, { protocolVersion: '2025-03-26' });
        expect((await session.send(calls(3))).status).toBe(400);
        expect((await session.send(calls(2))).status).toBe(200);
      });
    });
  });

  describe('rate limits count each request of a batch', () => {
    it('endpoint rateLimit: of a batch of 10 under limit 4, four calls run and six are answered RATE_LIMITED', async () => {
      const { tool, runs } = countingTool();
      const endpoint = { sessions: false as const, rateLimit: { limit: 4, windowMs: 60_000 } };
      await withMcp(adapter, { routes: [tool], plugins: [securityPlugin()], endpoint }, async (url) => {
        const response = await send(url, calls(10));
        expect(response.status).toBe(200);
        const answers = response.json as Answer[];
        expect(answers.map((answer) => answer.id)).toEqual(calls(10).map((call) => call.id));
        expect(runs.count).toBe(4);
        expect(answers.slice(0, 4).every((answer) => answer.result?.isError === undefined)).toBe(true);
        for (const answer of answers.slice(4)) expect(answer.error).toEqual(RATE_LIMITED);
        // The headers show the used-up bucket, and the next POST is refused as before.
        expect(header(response, 'x-ratelimit-remaining')).toBe('0');
        expect(Number(header(response, 'retry-after'))).toBeGreaterThan(0);
        const next = await send(url, request('ping'));
        expect(next.status).toBe(429);
        expect(next.json).toEqual(envelope('RATE_LIMITED', 'Too many requests.'));
      });
    });

    it('counts pings and listings too, but not notifications', async () => {
      const { tool } = countingTool();
      const endpoint = { sessions: false as const, rateLimit: { limit: 2, windowMs: 60_000 } };
      await withMcp(adapter, { routes: [tool], plugins: [securityPlugin()], endpoint }, async (url) => {
        const response = await send(url, [
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          request('ping', undefined, 'p1'),
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          request('tools/list', undefined, 'l1'),
          request('ping', undefined, 'p2'),
        ]);
        const answers = response.json as Answer[];
        expect(answers.map((answer) => answer.id)).toEqual(['p1', 'l1', 'p2']);
        expect(answers[0]?.error).toBeUndefined();
        expect(answers[1]?.error).toBeUndefined();
        expect(answers[2]?.error).toEqual(RATE_LIMITED);
      });
    });

    it('securityPlugin’s global rateLimit: each request of a batch counts as one request', async () => {
      const { tool, runs } = countingTool();
      await withMcp(
        adapter,
        {
          routes: [tool],
          plugins: [securityPlugin({ rateLimit: { limit: 3, windowMs: 60_000 } })],
          endpoint: { sessions: false },
        },
        async (url) => {
          const answers = (await send(url, calls(5))).json as Answer[];
          expect(runs.count).toBe(3);
          expect(answers.slice(3).map((answer) => answer.error)).toEqual([RATE_LIMITED, RATE_LIMITED]);
        },
      );
    });

    it('a tool route’s own meta.rateLimit is paid per call in a batch: the rest are isError RATE_LIMITED results', async () => {
      const { tool, runs } = countingTool({ rateLimit: { limit: 3, windowMs: 60_000 } });
      await withMcp(
        adapter,
        { routes: [tool], plugins: [securityPlugin()], endpoint: { sessions: false } },
        async (url) => {
          const answers = (await send(url, calls(6))).json as Answer[];
          expect(runs.count).toBe(3);
          const refused = answers.filter((answer) => answer.result?.isError === true);
          expect(refused).toHaveLength(3);
          // 2025-03-26 (the batch version) has no structuredContent: the envelope is the text.
          for (const answer of refused)
            expect(JSON.parse(answer.result?.content?.[0]?.text ?? '')).toEqual(
              envelope('RATE_LIMITED', 'Too many requests.'),
            );
        },
      );
    });
  });
});
