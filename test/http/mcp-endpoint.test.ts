// The agent-tool HTTP endpoint as a transport, on every adapter (docs/mcp.md, "The HTTP endpoint"): initialize and version
// negotiation, JSON-RPC answers, batches, the check order (Origin/Host 403 → 415 → session 400/404 →
// MCP-Protocol-Version 400), Origin and DNS-rebinding protection, 405s, auth/meta/rateLimit options,
// and MCP_NOT_CONFIGURED.
import { describe, expect, it } from 'vitest';
import { HttpError, route, securityPlugin, type Plugin } from 'svckit';
import { adapters } from './harness.js';
import {
  envelope,
  fakeAuth,
  header,
  initializeMessage,
  inSession,
  LATEST,
  notification,
  openSession,
  request,
  resultOf,
  send,
  SUPPORTED,
  withMcp,
} from './mcp-helpers.js';

const ping = route({ method: 'GET', url: '/ping', meta: { mcp: true }, handler: () => ({ pong: true }) });
const routes = [ping];

const SESSION_REQUIRED = envelope('MCP_SESSION_REQUIRED', 'Mcp-Session-Id header is required.');
const SESSION_NOT_FOUND = envelope('MCP_SESSION_NOT_FOUND', 'Session not found.');
const ORIGIN_FORBIDDEN = envelope('MCP_ORIGIN_FORBIDDEN', 'Origin not allowed.');
const HOST_FORBIDDEN = envelope('MCP_HOST_FORBIDDEN', 'Host not allowed.');
const MEDIA_TYPE = envelope('UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type.');
const VERSION_UNSUPPORTED = {
  error: {
    code: 'MCP_PROTOCOL_VERSION_UNSUPPORTED',
    message: 'Unsupported MCP-Protocol-Version.',
    details: { supported: SUPPORTED },
  },
};
const batchNotAllowed = (protocolVersion: string) => ({
  error: {
    code: 'MCP_BATCH_NOT_ALLOWED',
    message: 'JSON-RPC batches are not allowed here.',
    details: { protocolVersion },
  },
});

const portOf = (url: string) => new URL(url).port;

describe.each(adapters)('agent-tool endpoint on $name', (adapter) => {
  describe('initialize', () => {
    it('echoes every supported protocol version and opens a session each time', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const ids = new Set<string>();
        for (const version of SUPPORTED) {
          const response = await send(url, initializeMessage(version, `init-${version}`));
          expect(response.status).toBe(200);
          expect(header(response, 'content-type')).toMatch(/^application\/json/);
          expect(response.json).toEqual({
            jsonrpc: '2.0',
            id: `init-${version}`,
            result: {
              protocolVersion: version,
              capabilities: { tools: { listChanged: false } },
              serverInfo: { name: 'test', version: '0.0.0' },
            },
          });
          const id = header(response, 'mcp-session-id');
          expect(id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
          ids.add(id as string);
        }
        expect(ids.size).toBe(SUPPORTED.length);
      });
    });

    it('answers the latest version for an unknown or missing requested version', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const requested of ['1999-01-01', 42, undefined]) {
          const response = await send(url, initializeMessage(requested));
          expect(response.status).toBe(200);
          expect(resultOf(response).protocolVersion).toBe(LATEST);
        }
      });
    });

    it('sends serverInfo from mcpPlugin({ serverInfo })', async () => {
      const serverInfo = { name: 'notes-agent', version: '3.1.4' };
      await withMcp(adapter, { routes, mcp: { serverInfo } }, async (url) => {
        expect(resultOf(await send(url, initializeMessage())).serverInfo).toEqual(serverInfo);
      });
    });

    it('needs no session header, but a notification named initialize is not an initialize', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const response = await send(url, notification('initialize', { protocolVersion: LATEST }));
        expect(response.status).toBe(400);
        expect(response.json).toEqual(SESSION_REQUIRED);
      });
    });
  });

  describe('JSON-RPC messages', () => {
    it('answers notifications and responses with 202 and an empty body', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        for (const message of [
          notification('notifications/initialized'),
          notification('notifications/cancelled', { requestId: 'nothing-running' }),
          { jsonrpc: '2.0', id: 'server-asked', result: {} },
          { jsonrpc: '2.0', id: 'server-asked', error: { code: -1, message: 'no' } },
        ]) {
          const response = await session.send(message);
          expect(response.status).toBe(202);
          expect(response.body).toBe('');
        }
      });
    });

    it('answers ping with an empty result and an unknown method with -32601, keeping the id', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const pong = await session.send(request('ping', undefined, 7));
        expect(pong.status).toBe(200);
        expect(header(pong, 'content-type')).toMatch(/^application\/json/);
        expect(pong.json).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
        const unknown = await session.send(request('resources/list', undefined, 'u1'));
        expect(unknown.status).toBe(200);
        expect(unknown.json).toEqual({
          jsonrpc: '2.0',
          id: 'u1',
          error: { code: -32601, message: 'Method not found: resources/list' },
        });
      });
    });

    it('answers an invalid single message with HTTP 400 and JSON-RPC -32600', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const wrongVersion = await session.send({ jsonrpc: '1.0', id: 5, method: 'ping' });
        expect(wrongVersion.status).toBe(400);
        expect(wrongVersion.json).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32600 } });
        for (const message of ['hello', 12, { jsonrpc: '2.0', id: true, method: 'ping' }]) {
          const response = await session.send(message);
          expect(response.status).toBe(400);
          expect(response.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
        }
      });
    });
  });

  describe('batches', () => {
    it('answers a batch in request order when the session negotiated 2025-03-26, leaving out notifications', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url, { protocolVersion: '2025-03-26' });
        const response = await session.send([
          request('ping', undefined, 'b1'),
          notification('notifications/initialized'),
          request('nope', undefined, 'b2'),
          { jsonrpc: '1.0', id: 'b3', method: 'ping' },
          request('tools/list', undefined, 'b4'),
        ]);
        expect(response.status).toBe(200);
        const answers = response.json as Array<{ id: unknown; result?: unknown; error?: { code: number } }>;
        expect(answers.map((answer) => answer.id)).toEqual(['b1', 'b2', 'b3', 'b4']);
        expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'b1', result: {} });
        expect(answers[1]?.error?.code).toBe(-32601);
        expect(answers[2]?.error?.code).toBe(-32600);
        expect(answers[3]?.result).toEqual({ tools: [expect.objectContaining({ name: 'get_ping' })] });
      });
    });

    it('answers a batch of notifications only with 202', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url, { protocolVersion: '2025-03-26' });
        const response = await session.send([
          notification('notifications/initialized'),
          { jsonrpc: '2.0', id: 'x', result: {} },
        ]);
        expect(response.status).toBe(202);
        expect(response.body).toBe('');
      });
    });

    it('refuses a batch under another version, an empty batch and an initialize in a batch', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const version of ['2025-11-25', '2025-06-18', '2024-11-05']) {
          const session = await openSession(url, { protocolVersion: version });
          const response = await session.send([request('ping')]);
          expect(response.status).toBe(400);
          expect(response.json).toEqual(batchNotAllowed(version));
        }
        const old = await openSession(url, { protocolVersion: '2025-03-26' });
        const empty = await old.send([]);
        expect(empty.status).toBe(400);
        expect(empty.json).toEqual(batchNotAllowed('2025-03-26'));
        const withInitialize = await old.send([request('ping'), initializeMessage('2025-03-26')]);
        expect(withInitialize.status).toBe(400);
        expect(withInitialize.json).toEqual(batchNotAllowed('2025-03-26'));
      });
    });

    it('without sessions, allows a batch only under the assumed 2025-03-26', async () => {
      await withMcp(adapter, { routes, endpoint: { sessions: false } }, async (url) => {
        const allowed = await send(url, [request('ping', undefined, 1), request('ping', undefined, 2)]);
        expect(allowed.status).toBe(200);
        expect(allowed.json).toEqual([
          { jsonrpc: '2.0', id: 1, result: {} },
          { jsonrpc: '2.0', id: 2, result: {} },
        ]);
        const refused = await send(url, [request('ping')], {
          headers: { 'mcp-protocol-version': '2025-06-18' },
        });
        expect(refused.status).toBe(400);
        expect(refused.json).toEqual(batchNotAllowed('2025-06-18'));
      });
    });
  });

  describe('check order and session header', () => {
    it('answers 415 for a non-JSON body, initialize included, before looking at the session', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const contentType of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'text/plain; application/json',
          // JSON to the HTTP routes, but not the transport's media type (application/json only).
          'application/vnd.foo+json',
          'application/json-seq',
        ]) {
          const response = await send(url, undefined, {
            body: JSON.stringify(initializeMessage()),
            headers: { 'content-type': contentType },
          });
          expect(response.status).toBe(415);
          expect(response.json).toEqual(MEDIA_TYPE);
          expect(header(response, 'mcp-session-id')).toBeUndefined();
        }
        // Parameters and case are ignored.
        for (const contentType of ['application/json; charset=utf-8', 'Application/JSON ; Charset=UTF-8']) {
          const accepted = await send(url, initializeMessage(), { headers: { 'content-type': contentType } });
          expect(accepted.status, contentType).toBe(200);
        }
      });
    });

    it('answers 415 for a +json body in a session too, opening and touching nothing', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const refused = await send(url, initializeMessage(), {
          headers: { 'content-type': 'application/vnd.foo+json' },
        });
        expect(refused.status).toBe(415);
        expect(header(refused, 'mcp-session-id')).toBeUndefined();
        const session = await openSession(url);
        const listed = await session.send(request('tools/list'), {
          'content-type': 'application/vnd.foo+json',
        });
        expect(listed.status).toBe(415);
        expect(listed.json).toEqual(MEDIA_TYPE);
      });
    });

    it('answers 400 BAD_REQUEST for an empty JSON body: a malformed message, not an unsupported type', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const body of ['', '   ']) {
          const response = await send(url, undefined, {
            body,
            headers: { 'content-type': 'application/json' },
          });
          expect(response.status).toBe(400);
          expect(response.json).toMatchObject({ error: { code: 'BAD_REQUEST' } });
        }
      });
    });

    it('answers 400 MCP_SESSION_REQUIRED without the header and 404 for an unknown id', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const missing = await send(url, request('tools/list'));
        expect(missing.status).toBe(400);
        expect(missing.json).toEqual(SESSION_REQUIRED);
        const empty = await send(url, request('tools/list'), { headers: { 'mcp-session-id': '' } });
        expect(empty.status).toBe(400);
        expect(empty.json).toEqual(SESSION_REQUIRED);
        const unknown = await inSession(url, 'no-such-session').list();
        expect(unknown.status).toBe(404);
        expect(unknown.json).toEqual(SESSION_NOT_FOUND);
        // The session is looked at before the version header.
        const both = await inSession(url, 'no-such-session').list({ 'mcp-protocol-version': '1999-01-01' });
        expect(both.status).toBe(404);
      });
    });

    it('checks MCP-Protocol-Version: unsupported or not the negotiated one → 400; absent → negotiated', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url, { protocolVersion: '2025-06-18' });
        for (const version of ['1999-01-01', '2025-11-25', '2025-03-26']) {
          const response = await session.list({ 'mcp-protocol-version': version });
          expect(response.status).toBe(400);
          expect(response.json).toEqual(VERSION_UNSUPPORTED);
        }
        expect((await session.list({ 'mcp-protocol-version': '2025-06-18' })).status).toBe(200);
        expect((await session.list()).status).toBe(200);
        // Absent header: the negotiated 2025-06-18 is in force, so batches stay refused.
        expect((await session.send([request('ping')])).json).toEqual(batchNotAllowed('2025-06-18'));
      });
    });
  });

  describe('Origin', () => {
    it('allows no Origin and the server’s own origin, refuses any other with 403 MCP_ORIGIN_FORBIDDEN', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        expect((await send(url, initializeMessage())).status).toBe(200);
        expect((await send(url, initializeMessage(), { headers: { origin: url } })).status).toBe(200);
        for (const origin of [
          'https://evil.example.com',
          `http://localhost:${portOf(url)}`,
          `http://127.0.0.1:${Number(portOf(url)) + 1}`,
          `https://127.0.0.1:${portOf(url)}.evil.example`,
          'null',
        ]) {
          const response = await send(url, initializeMessage(), { headers: { origin } });
          expect(response.status).toBe(403);
          expect(response.json).toEqual(ORIGIN_FORBIDDEN);
          expect(header(response, 'mcp-session-id')).toBeUndefined();
        }
      });
    });

    it('allows origins listed in allowedOrigins, and any with "*"', async () => {
      const endpoint = { allowedOrigins: ['https://app.example.com'] };
      await withMcp(adapter, { routes, endpoint }, async (url) => {
        const listed = { origin: 'https://app.example.com' };
        expect((await send(url, initializeMessage(), { headers: listed })).status).toBe(200);
        const other = await send(url, initializeMessage(), {
          headers: { origin: 'https://other.example.com' },
        });
        expect(other.status).toBe(403);
      });
      await withMcp(adapter, { routes, endpoint: { allowedOrigins: ['*'] } }, async (url) => {
        const any = await send(url, initializeMessage(), { headers: { origin: 'https://evil.example.com' } });
        expect(any.status).toBe(200);
      });
    });

    it('runs before the media-type and session checks, and on DELETE too', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const evil = { origin: 'https://evil.example.com' };
        const textBody = await send(url, undefined, {
          body: 'hello',
          headers: { 'content-type': 'text/plain', ...evil },
        });
        expect(textBody.status).toBe(403);
        expect(textBody.json).toEqual(ORIGIN_FORBIDDEN);
        const noSession = await send(url, request('tools/list'), { headers: evil });
        expect(noSession.status).toBe(403);
        const removed = await session.remove(evil);
        expect(removed.status).toBe(403);
        expect(removed.json).toEqual(ORIGIN_FORBIDDEN);
        // The refused DELETE ended nothing.
        expect((await session.list()).status).toBe(200);
      });
    });
  });

  describe('Host (DNS rebinding)', () => {
    it('refuses a loopback caller naming another host, even with a matching Origin', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const rebound = { host: 'evil.example.com', origin: 'http://evil.example.com' };
        const init = await send(url, initializeMessage(), { headers: rebound });
        expect(init.status).toBe(403);
        expect(init.json).toEqual(HOST_FORBIDDEN);
        expect(header(init, 'mcp-session-id')).toBeUndefined();
        const hostOnly = await session.list({ host: `evil.example.com:${portOf(url)}` });
        expect(hostOnly.status).toBe(403);
        expect(hostOnly.json).toEqual(HOST_FORBIDDEN);
        const textBody = await send(url, undefined, {
          body: 'x',
          headers: { 'content-type': 'text/plain', ...rebound },
        });
        expect(textBody.status).toBe(403);
        const removed = await session.remove(rebound);
        expect(removed.status).toBe(403);
        expect(removed.json).toEqual(HOST_FORBIDDEN);
        expect((await session.list()).status).toBe(200);
      });
    });

    it('allows localhost, 127.0.0.1 and [::1] with their own origins', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const host of [`localhost:${portOf(url)}`, `127.0.0.1:${portOf(url)}`, `[::1]:${portOf(url)}`]) {
          const response = await send(url, initializeMessage(), {
            headers: { host, origin: `http://${host}` },
          });
          expect(response.status).toBe(200);
        }
      });
    });

    it('admits hosts listed in allowedHosts, and any with "*"', async () => {
      await withMcp(adapter, { routes, endpoint: { allowedHosts: ['api.example.com'] } }, async (url) => {
        const host = `api.example.com:${portOf(url)}`;
        const listed = await send(url, initializeMessage(), { headers: { host, origin: `http://${host}` } });
        expect(listed.status).toBe(200);
        const other = await send(url, initializeMessage(), { headers: { host: 'evil.example.com' } });
        expect(other.status).toBe(403);
        expect(other.json).toEqual(HOST_FORBIDDEN);
      });
      await withMcp(adapter, { routes, endpoint: { allowedHosts: ['*'] } }, async (url) => {
        const any = await send(url, initializeMessage(), {
          headers: { host: 'evil.example.com', origin: 'http://evil.example.com' },
        });
        expect(any.status).toBe(200);
      });
    });
  });

  describe('methods and paths', () => {
    it('answers GET with 405 and an Allow header; without sessions DELETE is 405 too', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const get = await send(url, undefined, { method: 'GET' });
        expect(get.status).toBe(405);
        expect(get.json).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
        expect(String(header(get, 'allow')).split(/,\s*/).sort()).toEqual(['DELETE', 'POST']);
      });
      await withMcp(adapter, { routes, endpoint: { sessions: false } }, async (url) => {
        const get = await send(url, undefined, { method: 'GET' });
        expect(get.status).toBe(405);
        expect(header(get, 'allow')).toBe('POST');
        const removed = await send(url, undefined, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } });
        expect(removed.status).toBe(405);
        expect(removed.json).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
      });
    });

    it('serves the endpoint at mcpRoutes({ path })', async () => {
      await withMcp(adapter, { routes, endpoint: { path: '/agent/tools' } }, async (url) => {
        const old = await send(url, initializeMessage());
        expect(old.status).toBe(404);
        expect(old.json).toMatchObject({ error: { code: 'NOT_FOUND' } });
        const moved = await send(url, initializeMessage(), { path: '/agent/tools' });
        expect(moved.status).toBe(200);
        expect(header(moved, 'mcp-session-id')).toBeDefined();
      });
    });

    it('answers 500 MCP_NOT_CONFIGURED when mcpPlugin is missing', async () => {
      await withMcp(adapter, { routes, mcp: null }, async (url) => {
        const response = await send(url, initializeMessage());
        expect(response.status).toBe(500);
        // A 500 keeps its code; the framework sends the neutral message at 500.
        expect(response.json).toEqual(envelope('MCP_NOT_CONFIGURED', 'Internal server error.'));
      });
    });
  });

  describe('auth, meta and rateLimit options', () => {
    it('auth: true answers 401 AUTH_REQUIRED without a user, initialize included', async () => {
      await withMcp(adapter, { routes, plugins: [fakeAuth()], endpoint: { auth: true } }, async (url) => {
        const anonymous = await send(url, initializeMessage());
        expect(anonymous.status).toBe(401);
        expect(anonymous.json).toEqual(envelope('AUTH_REQUIRED', 'Authentication required.'));
        expect(header(anonymous, 'mcp-session-id')).toBeUndefined();
        // The guard runs before the endpoint's own checks.
        const textBody = await send(url, undefined, { body: 'x', headers: { 'content-type': 'text/plain' } });
        expect(textBody.status).toBe(401);
        const bearer = { authorization: 'Bearer alice' };
        const session = await openSession(url, { headers: bearer });
        expect((await session.list()).status).toBe(200);
        const removed = await inSession(url, session.id).remove();
        expect(removed.status).toBe(401);
      });
      // Without auth: true (the default), initialize is anonymous.
      await withMcp(adapter, { routes, plugins: [fakeAuth()] }, async (url) => {
        expect((await send(url, initializeMessage())).status).toBe(200);
      });
    });

    it('auth: true without a plugin claiming `auth` refuses to boot', async () => {
      await expect(
        withMcp(adapter, { routes, endpoint: { auth: true } }, async () => {}),
      ).rejects.toMatchObject({
        code: 'HTTP_UNGUARDED_ROUTE_META',
      });
    });

    it('meta adds keys to the endpoint routes that plugins act on', async () => {
      const auditOnly: Plugin = {
        name: 'audit',
        setup(app) {
          app.metadata.add('http:guards', {
            name: 'audit',
            appliesTo: (candidate) => candidate.meta.audited === true,
            check: ({ request: incoming }) => {
              if (incoming.headers['x-audit'] !== 'yes')
                throw new HttpError(403, 'AUDIT_REQUIRED', 'Audit needed.');
            },
          });
        },
      };
      await withMcp(
        adapter,
        { routes, plugins: [auditOnly], endpoint: { meta: { audited: true } } },
        async (url) => {
          const refused = await send(url, initializeMessage());
          expect(refused.status).toBe(403);
          expect(refused.json).toEqual(envelope('AUDIT_REQUIRED', 'Audit needed.'));
          expect((await send(url, initializeMessage(), { headers: { 'x-audit': 'yes' } })).status).toBe(200);
        },
      );
    });

    it('rateLimit limits the endpoint per ip: the (limit+1)th POST answers 429 RATE_LIMITED', async () => {
      const endpoint = { rateLimit: { limit: 2, windowMs: 60_000 } };
      await withMcp(adapter, { routes, plugins: [securityPlugin()], endpoint }, async (url) => {
        const session = await openSession(url);
        expect((await session.send(request('ping'))).status).toBe(200);
        const refused = await session.send(request('ping'));
        expect(refused.status).toBe(429);
        expect(refused.json).toEqual(envelope('RATE_LIMITED', 'Too many requests.'));
        expect(Number(header(refused, 'retry-after'))).toBeGreaterThan(0);
        // A spoofed forwarding header changes nothing: the key is the socket ip.
        const spoofed = await session.send(request('ping'), { 'x-forwarded-for': '203.0.113.9' });
        expect(spoofed.status).toBe(429);
        expect((await send(url, initializeMessage())).status).toBe(429);
      });
    });
  });
});
