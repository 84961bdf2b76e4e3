// Every code the runtime answers for a route is in its OpenAPI responses and its client error union, as the
// module model decides: the reference service's global rate limit (modules.edge.security.rateLimit) answers
// 429 RATE_LIMITED on GET /notes, and the auth module refuses an expired token with AUTH_TOKEN_EXPIRED. The
// generated client reports both as typed failures, not UNEXPECTED_RESPONSE. Real server, in process.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../generated/client.js';
import { loadConfig } from '../../generated/config.js';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import type { App } from '../../runtime/app/app.js';
import { buildApp } from '../../src/app.js';

/** Requests one client may make per window (RATE_LIMIT in svc.config.yaml). */
const LIMIT = 4;
const ACCESS_TTL_MS = 15 * 60_000;

function documentedCodes(path: string, method: string, status: string): unknown {
  const operation = (openapi.paths as Record<string, Record<string, unknown>>)[path]?.[method] as {
    responses: Record<string, unknown>;
  };
  return JSON.stringify(operation.responses[status] ?? null);
}

describe('the reference service answers only codes its description names', () => {
  let app: App;
  let baseUrl: string;

  beforeAll(async () => {
    // Only Date is faked, so tokens can expire without waiting; the server's timers stay real.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      SVC_SECRET: 'a-test-secret-that-is-long-enough-for-svc',
      DATABASE_URL: 'memory',
      REDIS_URL: '',
      RATE_LIMIT: String(LIMIT),
    });
    app = await buildApp(config);
    baseUrl = (await app.listen({ port: 0, host: '127.0.0.1' })).url;
  });

  afterAll(async () => {
    await app.close();
    vi.useRealTimers();
  });

  it('documents RATE_LIMITED and the token codes on GET /notes', () => {
    expect(documentedCodes('/notes', 'get', '429')).toContain('"RATE_LIMITED"');
    expect(documentedCodes('/notes', 'get', '401')).toContain('"AUTH_TOKEN_EXPIRED"');
    expect(documentedCodes('/notes', 'get', '401')).toContain('"AUTH_TOKEN_INVALID"');
    expect(documentedCodes('/notes/{id}', 'delete', '401')).toContain('"AUTH_TOKEN_EXPIRED"');
  });

  it('an expired token, then the global limit, are typed failures of the generated client', async () => {
    const anonymous = createClient({ baseUrl, retry: false });
    const signedUp = await anonymous.register({
      body: { email: 'limits@example.com', password: 'a long enough password' },
    });
    if (!signedUp.ok) throw new Error(`register failed: ${signedUp.status}`);
    const client = createClient({
      baseUrl,
      headers: { authorization: `Bearer ${signedUp.data.accessToken}` },
      retry: false,
    });

    vi.setSystemTime(Date.now() + ACCESS_TTL_MS + 60_000);
    const expired = await client.listNotes({});
    // A typed failure: the code the route declares, not the `unexpected` UNEXPECTED_RESPONSE member.
    expect(expired).toMatchObject({ ok: false, status: 401, error: { code: 'AUTH_TOKEN_EXPIRED' } });
    expect(expired).not.toHaveProperty('unexpected');

    // The window restarted when the clock moved: the expired call was its first request.
    const answers = [];
    for (let i = 1; i <= LIMIT; i++) answers.push(await anonymous.listNotes({}));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
    const limited = answers[LIMIT - 1]!;
    expect(limited).toMatchObject({ ok: false, status: 429, error: { code: 'RATE_LIMITED' } });
    expect(limited).not.toHaveProperty('unexpected');
  });
});
