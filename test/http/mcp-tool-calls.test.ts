// Tool calls over the HTTP endpoint on every adapter (docs/mcp.md, "Tool calls"): tools/call errors, results
// and structuredContent, redaction, reporting, the synthetic request and per-route rate limits. Listing is in
// mcp-tool-list, cancellation in mcp-sessions.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  HttpError,
  route,
  securityPlugin,
  toolSignal,
  type ErrorReport,
  type HandlerInput,
  type Route,
} from 'svckit';
import { adapters, call, type AdapterUnderTest } from './harness.js';
import {
  envelope,
  fakeAuth,
  openSession,
  rpcError,
  request,
  toolResult,
  withMcp,
  type McpServerInput,
  PROJECT_BODY,
  NOTE_VIEW,
  removeNote,
  toolRoute,
  unlisted,
} from './mcp-helpers.js';

const SECRET_DETAILS = {
  title: 'visible',
  password: 'hunter2',
  token: 'tok-1',
  apiKey: 'key-1',
  hasPassword: true,
  passwordHint: null,
  nested: { client_secret: 's-1', count: 2 },
};
const REDACTED_DETAILS = {
  title: 'visible',
  password: '[REDACTED]',
  token: '[REDACTED]',
  apiKey: '[REDACTED]',
  hasPassword: true,
  passwordHint: null,
  nested: { client_secret: '[REDACTED]', count: 2 },
};
const invalidNote = () => new HttpError(422, 'NOTE_INVALID', 'Note is invalid.', { details: SECRET_DETAILS });

/** What the handler saw, for the synthetic-request tests. */
const view = route({
  ...NOTE_VIEW,
  handler: ({ request: incoming, params, query, context }) => ({
    method: incoming.method,
    url: incoming.url,
    routePattern: incoming.routePattern,
    ip: incoming.ip,
    headers: incoming.headers,
    params,
    query,
    user: context.user ?? null,
    hasSignal: toolSignal(incoming) !== undefined,
  }),
});
const createOptions = {
  method: 'POST' as const,
  url: '/projects',
  meta: { mcp: { description: 'Create a project' } },
  body: PROJECT_BODY,
  successStatus: 201,
  handler: ({ request: incoming, body }: HandlerInput) => ({
    created: body,
    url: incoming.url,
    method: incoming.method,
  }),
};
const create = route(createOptions);

const routes: Route[] = [
  view,
  create,
  removeNote(),
  unlisted(),
  toolRoute('/array', () => [1, 'two']),
  toolRoute('/count', () => 3),
  toolRoute('/invalid', () => {
    throw invalidNote();
  }),
  toolRoute(
    '/invalid-open',
    () => {
      throw invalidNote();
    },
    { mcp: { redactErrorDetails: false } },
  ),
  toolRoute('/own-error', ({ reply }) => {
    reply.status(409);
    return { error: { code: 'NOTE_CONFLICT', message: 'Taken.', details: { password: 'hunter2' } } };
  }),
  toolRoute('/boom', () => {
    throw new Error('database password is hunter2');
  }),
  toolRoute('/unavailable', () => {
    throw new HttpError(503, 'UPSTREAM_DOWN', 'Upstream is down.', { internalDetails: { host: 'db-1' } });
  }),
];

function serve(
  adapter: AdapterUnderTest,
  input: McpServerInput,
  body: (url: string) => Promise<void>,
): Promise<void> {
  return withMcp(adapter, { routes, ...input, plugins: [fakeAuth(), ...(input.plugins ?? [])] }, body);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(adapters)('tool calls on $name', (adapter) => {
  describe('tools/call errors', () => {
    it('answers -32602 for an unknown tool, a missing name and non-object arguments', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const unknown = await session.call('get_unlisted', {});
        expect(unknown.status).toBe(200);
        expect(rpcError(unknown)).toEqual({ code: -32602, message: 'Unknown tool: get_unlisted' });
        expect(rpcError(await session.send(request('tools/call', { arguments: {} })))?.code).toBe(-32602);
        for (const args of [[1], 'id=1', 7, true]) {
          const response = await session.call('get_count', args);
          expect(rpcError(response)?.code).toBe(-32602);
        }
        // No arguments at all is an empty object.
        expect(toolResult(await session.call('get_count')).structuredContent).toEqual({ result: 3 });
      });
    });

    // Left-out arguments mean none; null is not an object and is refused like [1] or 7.
    it('answers -32602 for arguments: null', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const response = await session.call('get_count', null);
        expect(rpcError(response)).toEqual({ code: -32602, message: 'params.arguments must be an object.' });
      });
    });
  });

  describe('results', () => {
    it('object results become structuredContent, other JSON is wrapped as { result }, with a text copy', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const created = toolResult(await session.call('post_projects', { name: 'apollo' }));
        expect(created.isError).toBeUndefined();
        expect(created.structuredContent).toEqual({
          created: { name: 'apollo' },
          url: '/projects',
          method: 'POST',
        });
        expect(JSON.parse(created.content[0]?.text ?? '')).toEqual(created.structuredContent);
        expect(created.content).toHaveLength(1);
        expect(created.content[0]?.type).toBe('text');
        expect(toolResult(await session.call('get_array', {}))).toEqual({
          content: [{ type: 'text', text: '[1,"two"]' }],
          structuredContent: { result: [1, 'two'] },
        });
        expect(toolResult(await session.call('get_count', {})).structuredContent).toEqual({ result: 3 });
      });
    });

    it('leaves structuredContent out under 2025-03-26 and 2024-11-05, errors included', async () => {
      await serve(adapter, {}, async (url) => {
        for (const protocolVersion of ['2025-03-26', '2024-11-05']) {
          const session = await openSession(url, { protocolVersion });
          const ok = toolResult(await session.call('get_count', {}));
          expect(ok).toEqual({ content: [{ type: 'text', text: '3' }] });
          const failed = toolResult(await session.call('get_invalid', {}));
          expect(failed.isError).toBe(true);
          expect(failed).not.toHaveProperty('structuredContent');
          expect(JSON.parse(failed.content[0]?.text ?? '')).toMatchObject({
            error: { code: 'NOTE_INVALID' },
          });
        }
      });
    });

    it('a body the handler sends itself with status ≥ 400 is an error result, not redacted', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const result = toolResult(await session.call('get_own-error', {}));
        expect(result.isError).toBe(true);
        const sent = {
          error: { code: 'NOTE_CONFLICT', message: 'Taken.', details: { password: 'hunter2' } },
        };
        expect(result.structuredContent).toEqual(sent);
        expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(sent);
      });
    });

    it('a validation failure is an error result with HTTP_VALIDATION, part and issues; the handler does not run', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const body = toolResult(await session.call('post_projects', { name: '' }));
        expect(body.isError).toBe(true);
        expect(body.structuredContent).toMatchObject({
          error: {
            code: 'HTTP_VALIDATION',
            part: 'body',
            issues: [expect.objectContaining({ path: 'name' })],
          },
        });
        const missing = toolResult(await session.call('post_projects', {}));
        expect(missing.structuredContent).toMatchObject({ error: { code: 'HTTP_VALIDATION', part: 'body' } });
        const params = toolResult(await session.call('get_notes_by_id', {}));
        expect(params.structuredContent).toMatchObject({
          error: {
            code: 'HTTP_VALIDATION',
            part: 'params',
            issues: [{ path: 'id', message: 'is required' }],
          },
        });
        const query = toolResult(await session.call('get_notes_by_id', { id: 'n1', limit: 'many' }));
        expect(query.isError).toBe(true);
        expect(query.structuredContent).toMatchObject({ error: { code: 'HTTP_VALIDATION', part: 'query' } });
      });
    });
  });

  describe('redaction of thrown errors’ details', () => {
    it('redacts secret-named values by default; HTTP sends the same details unredacted', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const result = toolResult(await session.call('get_invalid', {}));
        expect(result.isError).toBe(true);
        const expected = {
          error: { code: 'NOTE_INVALID', message: 'Note is invalid.', details: REDACTED_DETAILS },
        };
        expect(result.structuredContent).toEqual(expected);
        expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(expected);
        expect(result.content[0]?.text).not.toContain('hunter2');
        const overHttp = await call(`${url}/invalid`);
        expect(overHttp.status).toBe(422);
        expect((overHttp.json as { error: { details: unknown } }).error.details).toEqual(SECRET_DETAILS);
      });
    });

    it('mcpPlugin({ redactErrorDetails: false }) sends details as HTTP would', async () => {
      await serve(adapter, { mcp: { redactErrorDetails: false } }, async (url) => {
        const session = await openSession(url);
        const result = toolResult(await session.call('get_invalid', {}));
        expect(result.structuredContent).toEqual((await call(`${url}/invalid`)).json);
        expect(result.structuredContent).toMatchObject({ error: { details: { password: 'hunter2' } } });
      });
    });

    it('applies a custom redactor function', async () => {
      const redactErrorDetails = (details: unknown) => ({ keys: Object.keys(details as object).length });
      await serve(adapter, { mcp: { redactErrorDetails } }, async (url) => {
        const session = await openSession(url);
        const result = toolResult(await session.call('get_invalid', {}));
        expect(result.structuredContent).toEqual({
          error: { code: 'NOTE_INVALID', message: 'Note is invalid.', details: { keys: 7 } },
        });
      });
    });

    it('meta.mcp.redactErrorDetails: false on a route overrides the plugin default', async () => {
      await serve(adapter, {}, async (url) => {
        const session = await openSession(url);
        const open = toolResult(await session.call('get_invalid-open', {}));
        expect(open.structuredContent).toEqual({
          error: { code: 'NOTE_INVALID', message: 'Note is invalid.', details: SECRET_DETAILS },
        });
      });
    });
  });

  describe('unexpected errors and reporting', () => {
    it('answers INTERNAL_ERROR with the neutral message and hands the error to reportError', async () => {
      const reports: ErrorReport[] = [];
      const reportError = (entry: ErrorReport) => reports.push(entry);
      await serve(adapter, { mcp: { reportError } }, async (url) => {
        const session = await openSession(url);
        const result = toolResult(await session.call('get_boom', {}));
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toEqual(envelope('INTERNAL_ERROR', 'Internal server error.'));
        expect(result.content[0]?.text).not.toContain('hunter2');
        expect(reports).toHaveLength(1);
        expect(reports[0]).toMatchObject({
          code: 'INTERNAL_ERROR',
          status: 500,
          method: 'GET',
          route: '/boom',
        });
        expect(reports[0]?.requestId).toEqual(expect.any(String));
        expect((reports[0]?.error as Error).message).toBe('database password is hunter2');

        const down = toolResult(await session.call('get_unavailable', {}));
        expect(down.structuredContent).toEqual(envelope('UPSTREAM_DOWN', 'Upstream is down.'));
        expect(down.content[0]?.text).not.toContain('db-1');
        expect(reports[1]).toMatchObject({
          code: 'UPSTREAM_DOWN',
          status: 503,
          internalDetails: { host: 'db-1' },
        });
        // Client errors are not reported.
        await session.call('get_invalid', {});
        expect(reports).toHaveLength(2);
      });
    });

    it('reports to stderr by default and stays silent with reportError: false', async () => {
      const writes: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        writes.push(String(chunk));
        return true;
      });
      await serve(adapter, { mcp: { reportError: undefined } }, async (url) => {
        const session = await openSession(url);
        await session.call('get_boom', {});
      });
      expect(writes.filter((line) => line.includes('INTERNAL_ERROR') && line.includes('/boom'))).toHaveLength(
        1,
      );
      writes.length = 0;
      await serve(adapter, { mcp: { reportError: false } }, async (url) => {
        const session = await openSession(url);
        await session.call('get_boom', {});
      });
      expect(writes.filter((line) => line.includes('/boom'))).toEqual([]);
    });
  });

  describe('the synthetic request', () => {
    it('carries method, template, concrete url, caller ip and only the forwarded headers', async () => {
      await serve(adapter, {}, async (url) => {
        const caller = {
          authorization: 'Bearer alice',
          cookie: 'sid=1',
          'x-api-key': 'k-1',
          'x-tenant-id': 't-1',
          'accept-language': 'fr-CH',
          'user-agent': 'agent/1.0',
          'x-secret': 'do-not-forward',
          'x-forwarded-for': '203.0.113.9',
        };
        const session = await openSession(url, { headers: caller });
        const result = toolResult(
          await session.call('get_notes_by_id', { id: 'a/b c', limit: 5, tags: ['x', 'y'] }),
        );
        expect(result.isError).toBeUndefined();
        const seen = result.structuredContent as Record<string, unknown>;
        expect(seen).toMatchObject({
          method: 'GET',
          url: '/notes/a%2Fb%20c?limit=5&tags=x&tags=y',
          routePattern: '/notes/:id',
          ip: '127.0.0.1',
          params: { id: 'a/b c' },
          query: { limit: 5, tags: ['x', 'y'] },
          user: { id: 'alice' },
          hasSignal: true,
        });
        const { host, ...rest } = seen.headers as Record<string, string>;
        expect(host).toBe(new URL(url).host);
        expect(rest).toEqual({
          authorization: 'Bearer alice',
          cookie: 'sid=1',
          'x-api-key': 'k-1',
          'x-tenant-id': 't-1',
          'accept-language': 'fr-CH',
          'user-agent': 'agent/1.0',
        });
        // Over plain HTTP there is no tool signal.
        expect((await call(`${url}/notes/n1`)).json).toMatchObject({ hasSignal: false });
      });
    });

    it('forwards the headers named in mcpPlugin({ forwardHeaders }) too', async () => {
      await serve(adapter, { mcp: { forwardHeaders: ['X-Trace'] } }, async (url) => {
        const session = await openSession(url);
        const result = await session.call(
          'get_notes_by_id',
          { id: 'n1' },
          { 'x-trace': 'tr-1', 'x-secret': 's' },
        );
        const headers = toolResult(result).structuredContent?.headers as Record<string, string>;
        expect(headers['x-trace']).toBe('tr-1');
        expect(headers).not.toHaveProperty('x-secret');
      });
    });
  });

  describe('per-route rate limit on calls', () => {
    it('a tool route’s meta.rateLimit applies to calls, keyed by the caller ip (shared with HTTP)', async () => {
      const limited = route({
        method: 'GET',
        url: '/limited',
        meta: { mcp: true, rateLimit: { limit: 2, windowMs: 60_000 } },
        handler: () => ({ ok: true }),
      });
      await withMcp(adapter, { routes: [limited], plugins: [securityPlugin()] }, async (url) => {
        const session = await openSession(url);
        expect(toolResult(await session.call('get_limited', {})).structuredContent).toEqual({ ok: true });
        expect((await call(`${url}/limited`)).status).toBe(200);
        const refused = toolResult(await session.call('get_limited', {}));
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toEqual(envelope('RATE_LIMITED', 'Too many requests.'));
        expect((await call(`${url}/limited`)).status).toBe(429);
      });
    });
  });
});
