// The reference service on shared stores (docs/stores.md), as users run it: `svc start` processes on real
// backends. Two processes on one PostgreSQL and one Redis act as one service; a Redis outage makes the
// requests that need it answer 503 STORE_UNAVAILABLE, never letting one through, until Redis is back; and on
// the embedded PGlite, accounts and sessions survive a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedis, type TestRedis } from '../backends.js';
import type { RunningService } from './service-process.js';
import {
  call,
  cookieOf,
  errorCode,
  login,
  PASSWORD,
  register,
  start,
  twoProcesses,
  uniqueEmail,
} from './shared-stores-harness.js';

describe('two processes on one PostgreSQL and one Redis', () => {
  const processes = twoProcesses({ RATE_LIMIT: '100000' });

  test('an account made on A signs in on B, and B knows A session', async () => {
    const { a, b } = processes;
    const email = uniqueEmail('shared');
    await register(a, email);
    const signedIn = await login(b, email);
    expect(signedIn.status).toBe(200);
    const cookie = cookieOf(signedIn);
    expect(cookie).toMatch(/^svc_session=/);
    const me = await call(a, 'GET', '/auth/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect((me.body.user as { email: string }).email).toBe(email);
  });

  test('a refresh token used on A and replayed on B is AUTH_REFRESH_REUSED, and its family is dead on both', async () => {
    const { a, b } = processes;
    const email = uniqueEmail('refresh');
    const first = (await register(a, email)).body.refreshToken as string;
    const rotated = await call(a, 'POST', '/auth/refresh', { body: { refreshToken: first } });
    expect(rotated.status).toBe(200);
    const replayed = await call(b, 'POST', '/auth/refresh', { body: { refreshToken: first } });
    expect(replayed.status).toBe(401);
    expect(errorCode(replayed)).toBe('AUTH_REFRESH_REUSED');
    const next = rotated.body.refreshToken as string;
    for (const service of [a, b]) {
      const dead = await call(service, 'POST', '/auth/refresh', { body: { refreshToken: next } });
      expect(dead.status).toBe(401);
    }
  });

  test('the login throttle counts failures made on both processes', async () => {
    const { a, b } = processes;
    const email = uniqueEmail('throttle');
    await register(a, email);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      statuses.push((await login(attempt % 2 === 0 ? a : b, email, 'wrong password!')).status);
    }
    // The fifth failure, wherever it lands, reaches the limit of 5 per email: the account is locked on both.
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    for (const service of [a, b]) {
      const locked = await login(service, email);
      expect(locked.status).toBe(429);
      expect(errorCode(locked)).toBe('AUTH_LOCKED');
    }
  });

  test('50 wrong passwords sent at once to both processes check at most 5; the right one then answers AUTH_LOCKED', async () => {
    const { a, b } = processes;
    const email = uniqueEmail('burst');
    await register(a, email);
    // Sent from loopback addresses of this test's own: the login route allows 30 requests a minute per address
    // (the earlier tests signed in from 127.0.0.1), and an address of its own keeps the answers about the account.
    const arrived: string[] = [];
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        call(n % 2 === 0 ? a : b, 'POST', '/auth/login', {
          body: { email, password: 'wrong password!' },
          localAddress: `127.0.0.${20 + (n % 2)}`,
        }).then((answer) => {
          arrived.push(`${answer.status} ${errorCode(answer)}`);
          return answer;
        }),
      ),
    );
    // Each password checked answers 401, but the one that reached the limit of 5, which answers 429.
    const answers = burst.map((answer) => `${answer.status} ${errorCode(answer)}`);
    const unauthorized = answers.filter((answer) => answer === '401 AUTH_INVALID_CREDENTIALS').length;
    expect(unauthorized).toBeLessThanOrEqual(4);
    expect(answers.filter((answer) => answer === '429 AUTH_LOCKED')).toHaveLength(50 - unauthorized);
    // The others were refused before any password was hashed, so their answers came back before the first
    // checked password's (a throttle that checked first and counted after answered 401 first, then 429s).
    const firstChecked = arrived.indexOf('401 AUTH_INVALID_CREDENTIALS');
    expect(firstChecked === -1 ? arrived.length : firstChecked).toBeGreaterThanOrEqual(25);
    for (const [service, localAddress] of [
      [a, '127.0.0.22'],
      [b, '127.0.0.23'],
    ] as const) {
      const right = await call(service, 'POST', '/auth/login', {
        body: { email, password: PASSWORD },
        localAddress,
      });
      expect(`${right.status} ${errorCode(right)}`).toBe('429 AUTH_LOCKED');
    }
  });

  test('a role change or a removal made on A holds on the very next request B serves', async () => {
    const { a, b } = processes;
    const token = async (service: RunningService, name: string) => {
      const email = uniqueEmail(name);
      const body = (await register(service, email)).body as { accessToken: string; user: { id: string } };
      return { email, id: body.user.id, headers: { authorization: `Bearer ${body.accessToken}` } };
    };
    const owner = await token(a, 'team-owner');
    const member = await token(b, 'team-member');
    const team = await call(a, 'POST', '/tenants', { body: { name: 'Acme' }, headers: owner.headers });
    expect(team.status).toBe(201);
    const tenantId = team.body.id as string;
    const members = `/tenants/${tenantId}/members`;
    const added = await call(a, 'POST', members, {
      body: { email: member.email, role: 'member' },
      headers: owner.headers,
    });
    expect(added.status).toBe(201);
    const inTeam = { ...member.headers, 'x-tenant-id': tenantId };
    const note = await call(b, 'POST', '/notes', { body: { title: 'Shared' }, headers: inTeam });
    expect(note.status).toBe(201);
    const path = `/notes/${note.body.id as string}`;

    // B refuses the member's delete; A promotes them; B's next request deletes.
    expect(errorCode(await call(b, 'DELETE', path, { headers: inTeam }))).toBe('PERMISSION_DENIED');
    const promoted = await call(a, 'PATCH', `${members}/${member.id}`, {
      body: { role: 'admin' },
      headers: owner.headers,
    });
    expect(promoted.status).toBe(200);
    expect((await call(b, 'DELETE', path, { headers: inTeam })).status).toBe(204);

    // A removes them; B's next request is a non-member's.
    expect((await call(a, 'DELETE', `${members}/${member.id}`, { headers: owner.headers })).status).toBe(204);
    const after = await call(b, 'GET', '/notes', { headers: inTeam });
    expect([after.status, errorCode(after)]).toEqual([403, 'TENANT_ACCESS_DENIED']);
  });

  test('an idempotent POST made on A is replayed on B the moment A answered, 50 times in a row', async () => {
    const { a, b } = processes;
    const { accessToken } = (await register(a, uniqueEmail('idem'))).body as { accessToken: string };
    for (let round = 0; round < 50; round++) {
      // Behind a load balancer both processes see the one public host (the key's scope includes it).
      const headers = {
        authorization: `Bearer ${accessToken}`,
        'idempotency-key': `key-${Date.now()}-${round}`,
        host: 'notes.example.com',
      };
      const first = await call(a, 'POST', '/notes', { body: { title: `Once ${round}` }, headers });
      expect(first.status).toBe(201);
      // The record is complete before A's answer leaves: B never sees it pending (409).
      const again = await call(b, 'POST', '/notes', { body: { title: `Once ${round}` }, headers });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    }
    const reused = await call(b, 'POST', '/notes', {
      body: { title: 'Another' },
      headers: { authorization: `Bearer ${accessToken}`, 'idempotency-key': 'reused', host: 'h' },
    });
    expect(reused.status).toBe(201);
    const other = await call(a, 'POST', '/notes', {
      body: { title: 'Different' },
      headers: { authorization: `Bearer ${accessToken}`, 'idempotency-key': 'reused', host: 'h' },
    });
    expect([other.status, errorCode(other)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  test('an MCP session opened on A serves calls on B, and DELETE on B ends it for A', async () => {
    const { a, b } = processes;
    const signedUp = await register(a, uniqueEmail('agent'));
    const authorization = `Bearer ${signedUp.body.accessToken as string}`;
    const rpc = (service: RunningService, message: unknown, headers: Record<string, string> = {}) =>
      call(service, 'POST', '/mcp', { body: message, headers: { authorization, ...headers } });
    const opened = await rpc(a, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    });
    const session = opened.headers['mcp-session-id'] as string;
    expect(session).toEqual(expect.any(String));
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const created = await rpc(
      b,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'post_notes', arguments: { title: 'via B' } },
      },
      headers,
    );
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ result: { structuredContent: { title: 'via B' } } });
    // Another caller presenting the id is not its owner, on either process.
    const other = await register(b, uniqueEmail('intruder'));
    const foreign = await call(a, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 3, method: 'ping' },
      headers: { ...headers, authorization: `Bearer ${other.body.accessToken as string}` },
    });
    expect(foreign.status).toBe(404);
    const ended = await call(b, 'DELETE', '/mcp', { headers: { authorization, 'mcp-session-id': session } });
    expect(ended.status).toBe(204);
    const gone = await rpc(a, { jsonrpc: '2.0', id: 4, method: 'ping' }, headers);
    expect(gone.status).toBe(404);
    expect(errorCode(gone)).toBe('MCP_SESSION_NOT_FOUND');
  });

  test('an anonymous MCP session opened on A serves calls on B (its fingerprint is keyed from SVC_SECRET)', async () => {
    const { a, b } = processes;
    const opened = await call(a, 'POST', '/mcp', {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'e2e', version: '1' },
        },
      },
    });
    const id = opened.headers['mcp-session-id'] as string;
    expect(id).toEqual(expect.any(String));
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const listed = await call(b, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers,
    });
    expect(listed.status).toBe(200);
    // A signed-in caller presenting the anonymous session's id is another caller, on either process.
    const signedIn = await register(b, uniqueEmail('other-agent'));
    const foreign = await call(b, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 3, method: 'ping' },
      headers: { ...headers, authorization: `Bearer ${signedIn.body.accessToken as string}` },
    });
    expect([foreign.status, errorCode(foreign)]).toEqual([404, 'MCP_SESSION_NOT_FOUND']);
  });

  test('both report their backends on /readyz', async () => {
    const { a, b } = processes;
    for (const service of [a, b]) {
      const ready = await call(service, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', checks: { database: { ok: true }, redis: { ok: true } } });
    }
  });
});

describe('rate limits count across processes', () => {
  const processes = twoProcesses({ RATE_LIMIT: '10' });

  test('ten requests per minute per address, shared by A and B', async () => {
    const { a, b } = processes;
    const remaining: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const answer = await call(i % 2 === 0 ? a : b, 'GET', '/auth/me');
      expect(answer.status).toBe(401);
      remaining.push(String(answer.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    for (const service of [a, b]) {
      const limited = await call(service, 'GET', '/auth/me');
      expect(limited.status).toBe(429);
      expect(errorCode(limited)).toBe('RATE_LIMITED');
    }
  });
});

describe('when Redis goes away', () => {
  let redis: TestRedis;
  let service: RunningService;

  beforeAll(async () => {
    redis = await startRedis();
    service = await start({ DATABASE_URL: 'memory', REDIS_URL: redis.url, RATE_LIMIT: '100000' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await redis?.kill();
  });

  test('requests that need it answer 503 STORE_UNAVAILABLE, none passes a check, and it serves again once Redis is back', async () => {
    const email = uniqueEmail('fault');
    const registered = await register(service, email);
    const { accessToken, refreshToken } = registered.body as { accessToken: string; refreshToken: string };
    const signedIn = await login(service, email);
    const cookie = cookieOf(signedIn);

    await redis.kill();
    const during = [
      await login(service, email),
      await call(service, 'POST', '/auth/refresh', { body: { refreshToken } }),
      await call(service, 'GET', '/auth/me', { headers: { cookie } }),
      await call(service, 'POST', '/notes', {
        body: { title: 'x' },
        headers: { authorization: `Bearer ${accessToken}`, 'idempotency-key': 'k1' },
      }),
    ];
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(errorCode(answer)).toBe('STORE_UNAVAILABLE');
    }
    // A bearer token needs no store, and the global bucket's hits were leased from Redis before it went away:
    // what the process already holds it may spend; the next lease would need Redis.
    const leased = await call(service, 'GET', '/notes', {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(leased.status).toBe(200);
    const ready = await call(service, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', checks: { redis: { ok: false } } });
    expect((await call(service, 'GET', '/livez')).status).toBe(200);

    await redis.start();
    // The client reconnects by itself (backoff at most 1 s); Redis kept nothing, so sign in anew.
    let answer = await login(service, email);
    for (let tries = 0; answer.status === 503 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await login(service, email);
    }
    expect(answer.status).toBe(200);
    const fresh = answer.body as { accessToken: string; refreshToken: string };
    const notes = await call(service, 'GET', '/notes', {
      headers: { authorization: `Bearer ${fresh.accessToken}` },
    });
    expect(notes.status).toBe(200);
    const rotated = await call(service, 'POST', '/auth/refresh', {
      body: { refreshToken: fresh.refreshToken },
    });
    expect(rotated.status).toBe(200);
    expect((await call(service, 'GET', '/readyz')).status).toBe(200);
  }, 60_000);
});

describe('on the embedded PGlite', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-pglite-e2e-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('accounts and sessions survive a restart, and a second process on the same directory is refused', async () => {
    const env = { DATABASE_URL: `pglite:${join(dir, 'data')}`, REDIS_URL: '' };
    const email = uniqueEmail('pglite');
    const first = await start(env);
    let cookie: string;
    let refreshToken: string;
    try {
      await register(first, email);
      const signedIn = await login(first, email);
      cookie = cookieOf(signedIn);
      refreshToken = signedIn.body.refreshToken as string;
      const second = await start(env).then(
        async (service) => {
          await service.stop();
          return '';
        },
        (error: unknown) => String(error),
      );
      expect(second).toMatch(/STORE_LOCKED/);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const again = await start(env);
    try {
      const me = await call(again, 'GET', '/auth/me', { headers: { cookie } });
      expect(me.status).toBe(200);
      expect((me.body.user as { email: string }).email).toBe(email);
      expect((await call(again, 'POST', '/auth/refresh', { body: { refreshToken } })).status).toBe(200);
      expect((await login(again, email)).status).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 90_000);
});
