// Shared state at speed (docs/stores.md, "Hot cache"): two `svc start` processes of the reference service on
// one PostgreSQL and one Redis each keep what their hot path reads (sessions, users, API keys, roles) in a
// cache of their own, and a change made on A reaches B through the invalidation bus before B's next request:
// a logout, a password reset, a revoked key, a removed member. When the bus goes away, B trusts what it
// cached for the fallback window (1 s) only, and then refuses rather than serve a stale allow; the global rate
// limit, spent from leases each process reserves in Redis, never admits more than the limit.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  cookieOf,
  errorCode,
  PASSWORD,
  startPair,
  uniqueEmail,
  type Answer,
  type CallOptions,
  type ServicePair,
} from './shared-stores-harness.js';
import type { RunningService } from './service-process.js';

/** The documented windows (docs/stores.md): the cache's fallback TTL and the bus's heartbeat. */
const FALLBACK_TTL_MS = 1_000;
const HEARTBEAT_MS = 1_000;
/** What the test allows on top of a documented window: a request's own round trip on a busy machine. */
const MARGIN_MS = 300;

/**
 * A client on a loopback address of its own: the global rate limit and the login route's limit count per
 * address, so each test gets a budget no other test spends.
 */
function clientOn(localAddress: string) {
  const send = (service: RunningService, method: string, path: string, options: CallOptions = {}) =>
    call(service, method, path, { ...options, localAddress });
  return {
    call: send,
    async register(service: RunningService, email: string): Promise<Answer> {
      const answer = await send(service, 'POST', '/auth/register', { body: { email, password: PASSWORD } });
      expect(answer.status).toBe(201);
      return answer;
    },
    /** A new session of `email`, as the cookie header that presents it. */
    async signIn(service: RunningService, email: string, password = PASSWORD): Promise<string> {
      const answer = await send(service, 'POST', '/auth/login', { body: { email, password } });
      expect(answer.status).toBe(200);
      const cookie = cookieOf(answer);
      expect(cookie).toMatch(/^svc_session=./);
      return cookie;
    },
    me: (service: RunningService, headers: Record<string, string>) =>
      send(service, 'GET', '/auth/me', { headers }),
  };
}

/** `x-session-id` carries the same id the cookie does. */
const sessionHeader = (cookie: string) => ({
  'x-session-id': decodeURIComponent(cookie.slice('svc_session='.length)),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The answer `request` gets, as `status code`. An allow also says what the same request got 100 ms later, which
 * tells an invalidation that arrived late (a race) from one that was lost.
 */
async function outcome(request: () => Promise<Answer>): Promise<string> {
  const first = await request();
  const shown = `${first.status} ${errorCode(first)}`;
  if (first.status >= 300) return shown;
  await pause(100);
  const again = await request();
  return `${shown}, then ${again.status} ${errorCode(again)} 100 ms later`;
}

/** The first line of `service`'s log that `matches`, once its output (a pipe) brought it here. */
async function loggedLine(service: RunningService, matches: (line: string) => boolean): Promise<string> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const line = service.output().split('\n').find(matches);
    if (line !== undefined) return line;
    if (performance.now() > deadline) throw new Error(`no such line in the log:\n${service.output()}`);
    await pause(20);
  }
}

interface Observation {
  /** When the request was sent, in ms after the event the test measures from. */
  at: number;
  status: number;
  code: string | undefined;
}

/** Sends `request` every `everyMs` for `forMs` (or until `done`), noting when each was sent and its answer. */
async function observe(
  since: number,
  request: () => Promise<Answer>,
  options: { forMs: number; everyMs?: number; done?: (seen: Observation[]) => boolean },
): Promise<Observation[]> {
  const seen: Observation[] = [];
  for (;;) {
    const at = performance.now() - since;
    if (at > options.forMs || options.done?.(seen) === true) return seen;
    const answer = await request();
    seen.push({ at: Math.round(at), status: answer.status, code: errorCode(answer) });
    await pause(options.everyMs ?? 50);
  }
}

/** The answer `request` gives once it stops answering 503 (a backend coming back), within `forMs`. */
async function afterOutage(request: () => Promise<Answer>, forMs = 6_000): Promise<Answer> {
  const deadline = performance.now() + forMs;
  let answer = await request();
  while (answer.status === 503 && performance.now() < deadline) {
    await pause(100);
    answer = await request();
  }
  return answer;
}

/**
 * Two pairs, started at once (each start takes seconds). `direct`: both processes reach Redis directly, with a
 * global limit of 100 requests a minute per address (each test below sends from addresses of its own).
 * `partitioned`: B reaches Redis through proxies the bus tests cut; its generous limit keeps the rate limiter
 * out of their way (a process leases a thousand hits at a time, so it needs no Redis to admit a request).
 */
let direct: ServicePair;
let partitioned: ServicePair;

beforeAll(async () => {
  const pairs = await Promise.allSettled([
    startPair({ RATE_LIMIT: '100' }),
    startPair({ RATE_LIMIT: '100000' }, { redisProxyForB: true }),
  ]);
  const failed = pairs.find((pair) => pair.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(pairs.map((pair) => (pair.status === 'fulfilled' ? pair.value.stop() : undefined)));
    throw failed.reason;
  }
  [direct, partitioned] = pairs.map((pair) => (pair as PromiseFulfilledResult<ServicePair>).value) as [
    ServicePair,
    ServicePair,
  ];
}, 120_000);

afterAll(async () => {
  await Promise.all([direct?.stop(), partitioned?.stop()]);
});

describe('a change made on A holds on the very next request B serves, though B cached what it read', () => {
  test('a session B served is refused by B right after A signs it out, 20 times in a row', async () => {
    const { a, b } = direct;
    const email = uniqueEmail('logout');
    await clientOn('127.0.1.100').register(a, email);
    const after: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const client = clientOn(`127.0.1.${round + 1}`);
      const cookie = await client.signIn(round % 2 === 0 ? a : b, email);
      // Both ways of presenting a session: the cookie, and the x-session-id header.
      const headers = round % 2 === 0 ? { cookie } : sessionHeader(cookie);
      // Twice: the second is served from B's cache, if it has one.
      expect((await client.me(b, headers)).status).toBe(200);
      expect((await client.me(b, headers)).status).toBe(200);
      expect((await client.call(a, 'POST', '/auth/logout', { headers })).status).toBe(204);
      after.push(await outcome(() => client.me(b, headers)));
    }
    expect(after).toEqual(
      Array.from({ length: 20 }, (_, round) =>
        round % 2 === 0 ? '401 AUTH_REQUIRED' : '401 AUTH_TOKEN_INVALID',
      ),
    );
  });

  test('a password reset on A ends on B every session of the user, and B checks the new password', async () => {
    const { a, b } = direct;
    const client = clientOn('127.0.0.42');
    const email = uniqueEmail('reset');
    await client.register(a, email);
    const sessions = [await client.signIn(b, email), await client.signIn(a, email)];
    for (const cookie of sessions) {
      expect((await client.me(b, { cookie })).status).toBe(200);
      expect((await client.me(b, { cookie })).status).toBe(200);
    }

    const forgot = await client.call(a, 'POST', '/auth/password/forgot', { body: { email } });
    expect(forgot.status).toBe(200);
    // In development the mail is one JSON line in the log of the process that sent it.
    const line = await loggedLine(a, (text) => text.includes(email) && text.includes('/auth/password/reset'));
    const token = new URL((JSON.parse(line) as { link: string }).link).searchParams.get('token') ?? '';
    const newPassword = 'another long enough password';
    const reset = await client.call(a, 'POST', '/auth/password/reset', {
      body: { token, password: newPassword },
    });
    expect(reset.status).toBe(200);

    for (const cookie of sessions) {
      const refused = await client.me(b, { cookie });
      expect([refused.status, errorCode(refused)]).toEqual([401, 'AUTH_REQUIRED']);
    }
    const old = await client.call(b, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
    expect([old.status, errorCode(old)]).toEqual([401, 'AUTH_INVALID_CREDENTIALS']);
    expect((await client.me(b, { cookie: await client.signIn(b, email, newPassword) })).status).toBe(200);
  });

  test('an API key B accepted is refused by B right after A revokes it, 10 times in a row', async () => {
    const { a, b } = direct;
    const client = clientOn('127.0.0.43');
    const owner = await client.register(a, uniqueEmail('key-owner'));
    const bearer = { authorization: `Bearer ${owner.body.accessToken as string}` };
    const after: string[] = [];
    for (let round = 0; round < 10; round += 1) {
      const created = await client.call(a, 'POST', '/apikeys', {
        body: { name: `agent ${round}`, scopes: ['notes:read'] },
        headers: bearer,
      });
      expect(created.status).toBe(201);
      const { key, record } = created.body as { key: string; record: { id: string } };
      const withKey = { 'x-api-key': key };
      expect((await client.call(b, 'GET', '/notes', { headers: withKey })).status).toBe(200);
      expect((await client.call(b, 'GET', '/notes', { headers: withKey })).status).toBe(200);
      expect((await client.call(a, 'DELETE', `/apikeys/${record.id}`, { headers: bearer })).status).toBe(204);
      after.push(await outcome(() => client.call(b, 'GET', '/notes', { headers: withKey })));
    }
    expect(after).toEqual(Array.from({ length: 10 }, () => '401 AUTH_TOKEN_INVALID'));
  });

  test("a member's role changed, then the member removed, on A holds on B's next request, though B had just served them", async () => {
    const { a, b } = direct;
    const client = clientOn('127.0.0.44');
    const account = async (service: RunningService, name: string) => {
      const email = uniqueEmail(name);
      const body = (await client.register(service, email)).body as {
        accessToken: string;
        user: { id: string };
      };
      return { email, id: body.user.id, headers: { authorization: `Bearer ${body.accessToken}` } };
    };
    const owner = await account(a, 'cached-owner');
    const member = await account(b, 'cached-member');
    const team = await client.call(a, 'POST', '/tenants', {
      body: { name: 'Cached' },
      headers: owner.headers,
    });
    expect(team.status).toBe(201);
    const members = `/tenants/${team.body.id as string}/members`;
    const added = await client.call(a, 'POST', members, {
      body: { email: member.email, role: 'member' },
      headers: owner.headers,
    });
    expect(added.status).toBe(201);
    const inTeam = { ...member.headers, 'x-tenant-id': team.body.id as string };
    const notes = await Promise.all(
      ['first', 'second'].map((title) =>
        client.call(b, 'POST', '/notes', { body: { title }, headers: inTeam }),
      ),
    );
    for (const note of notes) expect(note.status).toBe(201);
    const [first, second] = notes.map((note) => `/notes/${note.body.id as string}`) as [string, string];

    // B reads the member's role (a member may not delete), then A promotes them: B's next request is an admin's.
    expect(errorCode(await client.call(b, 'DELETE', first, { headers: inTeam }))).toBe('PERMISSION_DENIED');
    expect((await client.call(b, 'GET', '/notes', { headers: inTeam })).status).toBe(200);
    const promoted = await client.call(a, 'PATCH', `${members}/${member.id}`, {
      body: { role: 'admin' },
      headers: owner.headers,
    });
    expect(promoted.status).toBe(200);
    expect((await client.call(b, 'DELETE', first, { headers: inTeam })).status).toBe(204);

    // B serves the admin, then A removes them: B's next request is a stranger's.
    expect((await client.call(b, 'GET', second, { headers: inTeam })).status).toBe(200);
    expect((await client.call(b, 'GET', '/notes', { headers: inTeam })).status).toBe(200);
    const removed = await client.call(a, 'DELETE', `${members}/${member.id}`, { headers: owner.headers });
    expect(removed.status).toBe(204);
    expect(await outcome(() => client.call(b, 'GET', '/notes', { headers: inTeam }))).toBe(
      '403 TENANT_ACCESS_DENIED',
    );
    const deleted = await client.call(b, 'DELETE', second, { headers: inTeam });
    expect([deleted.status, errorCode(deleted)]).toEqual([403, 'TENANT_ACCESS_DENIED']);
  });
});

describe('the global rate limit, spent from leases A and B reserve in Redis', () => {
  test('1000 requests spread over A and B, 20 at a time, from one address: at most the limit (100) admitted, at most 2 × (lease − 1) fewer', async () => {
    const { a, b } = direct;
    const limit = 100;
    const lease = Math.ceil(limit / 20);
    const answers: Answer[] = [];
    let sent = 0;
    const sender = async () => {
      while (sent < 1000) {
        const n = sent++;
        answers.push(await call(n % 2 === 0 ? a : b, 'GET', '/auth/me', { localAddress: '127.0.0.50' }));
      }
    };
    await Promise.all(Array.from({ length: 20 }, sender));

    expect(answers).toHaveLength(1000);
    const admitted = answers.filter((answer) => answer.status !== 429);
    // Admitted means the request reached its route: anonymous, /auth/me answers 401.
    expect(new Set(admitted.map((answer) => `${answer.status} ${errorCode(answer)}`))).toEqual(
      new Set(['401 AUTH_REQUIRED']),
    );
    expect(admitted.length).toBeLessThanOrEqual(limit);
    expect(admitted.length).toBeGreaterThanOrEqual(limit - 2 * (lease - 1));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(new Set(refused.map(errorCode))).toEqual(new Set(['RATE_LIMITED']));
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
  });
});

// In order: the bus cut between B and Redis, then Redis itself killed (the pair's last test).
describe('when the bus goes away, B trusts what it cached for the fallback window only', () => {
  test('B, cut off from Redis (its connections closed), refuses a session A ended within the fallback window, and once reconnected hears revocations at once', async () => {
    const { a, b, proxy } = partitioned;
    const client = clientOn('127.0.0.47');
    const email = uniqueEmail('partition');
    await client.register(a, email);
    const cookie = await client.signIn(a, email);
    expect((await client.me(b, { cookie })).status).toBe(200);
    expect((await client.me(b, { cookie })).status).toBe(200);

    await proxy!.cut();
    const cutAt = performance.now();
    // A waits up to two beats for B's acknowledgement, which never comes: B is watched meanwhile.
    const logout = client.call(a, 'POST', '/auth/logout', { headers: { cookie } }).then((answer) => ({
      status: answer.status,
      tookMs: performance.now() - cutAt,
    }));
    // B sees its connections close: the bus is visibly down, so what B cached is trusted the fallback window.
    const bound = FALLBACK_TTL_MS + MARGIN_MS;
    const seen = await observe(cutAt, () => client.me(b, { cookie }), {
      forMs: 2 * bound,
      // Five answers past the first refusal show it stays refused.
      done: (so) => so.filter((answer) => answer.status !== 200).length >= 5,
    });
    const loggedOut = await logout;
    expect(loggedOut.status).toBe(204);
    expect(loggedOut.tookMs, 'a logout waits two beats at most for a silent process').toBeLessThanOrEqual(
      2 * HEARTBEAT_MS + MARGIN_MS,
    );
    const firstRefusal = seen.findIndex((answer) => answer.status !== 200);
    expect(firstRefusal, JSON.stringify(seen)).toBeGreaterThanOrEqual(0);
    expect(seen[firstRefusal]!.at, JSON.stringify(seen)).toBeLessThanOrEqual(bound);
    // Refused means: not signed in (the logout was heard) or 503 (the session store is out of reach); never
    // a stale allow once refused.
    for (const later of seen.slice(firstRefusal)) {
      expect([401, 503], JSON.stringify(seen)).toContain(later.status);
      if (later.status === 503) expect(later.code).toBe('STORE_UNAVAILABLE');
    }

    await proxy!.restore();
    const restoredAt = performance.now();
    const after = clientOn('127.0.0.48');
    // B serves again: a session made on A after the restore.
    const fresh = await after.signIn(a, email);
    expect((await afterOutage(() => after.me(b, { cookie: fresh }))).status).toBe(200);
    // The ended session stays ended on B.
    const ended = await after.me(b, { cookie });
    expect([ended.status, errorCode(ended)]).toEqual([401, 'AUTH_REQUIRED']);
    // B's bus is up again once it hears its own heartbeat after subscribing again; until then a logout on A may
    // be missed for the fallback window. From then on, every revocation reaches B at once: three in a row.
    const rounds: string[] = [];
    while (rounds.filter((round) => round === '401').length < 3) {
      expect(performance.now() - restoredAt, JSON.stringify(rounds)).toBeLessThan(
        2 * HEARTBEAT_MS + FALLBACK_TTL_MS + 2_000,
      );
      const session = await after.signIn(a, email);
      expect((await after.me(b, { cookie: session })).status).toBe(200);
      expect((await after.call(a, 'POST', '/auth/logout', { headers: { cookie: session } })).status).toBe(
        204,
      );
      const next = (await after.me(b, { cookie: session })).status;
      // Once one revocation was heard at once, a stale allow is a bus that came back and lost its way.
      if (rounds.includes('401')) expect(next, JSON.stringify(rounds)).toBe(401);
      rounds.push(String(next));
      if (next !== 401) await pause(200);
    }
  });

  test('B, silently cut off from Redis (nothing closed), refuses a session A ended within 2 × heartbeat + fallback', async () => {
    const { a, b, silence } = partitioned;
    const client = clientOn('127.0.0.45');
    const email = uniqueEmail('silent');
    await client.register(a, email);
    const cookie = await client.signIn(a, email);
    expect((await client.me(b, { cookie })).status).toBe(200);
    expect((await client.me(b, { cookie })).status).toBe(200);

    // Only missing heartbeats can tell B: its bus is trusted up to 2 heartbeats, then the fallback window.
    silence!.freeze();
    const frozenAt = performance.now();
    let seen: Observation[];
    try {
      expect((await client.call(a, 'POST', '/auth/logout', { headers: { cookie } })).status).toBe(204);
      // A request that needs Redis now waits for the command timeout (2 s) before its 503.
      seen = await observe(frozenAt, () => client.me(b, { cookie }), {
        forMs: 2 * HEARTBEAT_MS + FALLBACK_TTL_MS + MARGIN_MS,
        done: (so) => so.some((answer) => answer.status !== 200),
      });
    } finally {
      silence!.thaw();
    }
    const shown = JSON.stringify(seen);
    const firstRefusal = seen.findIndex((answer) => answer.status !== 200);
    expect(firstRefusal, shown).toBeGreaterThanOrEqual(0);
    expect(seen[firstRefusal]!.at, shown).toBeLessThanOrEqual(2 * HEARTBEAT_MS + FALLBACK_TTL_MS + MARGIN_MS);
    expect([401, 503], shown).toContain(seen[firstRefusal]!.status);

    // The path is back: what was held is delivered, and the ended session is refused for good.
    const ended = await afterOutage(() => client.me(b, { cookie }));
    expect([ended.status, errorCode(ended)]).toEqual([401, 'AUTH_REQUIRED']);
    const fresh = await client.signIn(a, email);
    expect((await afterOutage(() => client.me(b, { cookie: fresh }))).status).toBe(200);
  });

  test('Redis killed: past the fallback window B answers 503 STORE_UNAVAILABLE, never a stale allow; once Redis is back B serves again', async () => {
    const { a, b, redis } = partitioned;
    const client = clientOn('127.0.0.49');
    const email = uniqueEmail('redis-killed');
    await client.register(a, email);
    const cookie = await client.signIn(a, email);
    expect((await client.me(b, { cookie })).status).toBe(200);
    expect((await client.me(b, { cookie })).status).toBe(200);

    await redis.kill();
    const killedAt = performance.now();
    const seen = await observe(killedAt, () => client.me(b, { cookie }), { forMs: 2 * FALLBACK_TTL_MS });
    const shown = JSON.stringify(seen);
    for (const answer of seen) {
      expect(['200 undefined', '503 STORE_UNAVAILABLE'], shown).toContain(`${answer.status} ${answer.code}`);
    }
    const lastAllow = seen.filter((answer) => answer.status === 200).at(-1);
    expect(lastAllow?.at ?? 0, shown).toBeLessThanOrEqual(FALLBACK_TTL_MS + MARGIN_MS);
    const firstRefusal = seen.findIndex((answer) => answer.status === 503);
    expect(firstRefusal, shown).toBeGreaterThanOrEqual(0);
    expect(
      seen.slice(firstRefusal).every((answer) => answer.status === 503),
      shown,
    ).toBe(true);

    // A Redis without persistence comes back empty: the session is gone (never served from what B cached
    // before), and a new sign-in works on both.
    await redis.start();
    const forgotten = await afterOutage(() => client.me(b, { cookie }));
    expect([forgotten.status, errorCode(forgotten)]).toEqual([401, 'AUTH_REQUIRED']);
    const again = await afterOutage(() =>
      client.call(a, 'POST', '/auth/login', { body: { email, password: PASSWORD } }),
    );
    expect(again.status).toBe(200);
    const me = await afterOutage(() => client.me(b, { cookie: cookieOf(again) }));
    expect(me.status).toBe(200);
  });
});
