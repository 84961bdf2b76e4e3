// The reference service as users run it (`svc start`, its own process) driven through the generated client,
// once per adapter: SVC_ADAPTER switches `server.adapter` in svc.config.yaml. Notes belong to the signed-in
// user, so the client signs up first and sends its access token.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../generated/client.js';
import { createDatabase, type TestDatabase } from '../backends.js';
import { REPO_ROOT } from '../cli/run-svc.js';
import { startService, type RunningService } from './service-process.js';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
/**
 * A database of its own on the local PostgreSQL for each service the suite starts (the notes live in SQL; a
 * fresh one costs far less than an embedded in-memory PGlite per service process); no Redis. Each its own:
 * the per-address rate limits (20 sign-ups an hour) live in the database, and the three services' tests
 * together sign up more than that from 127.0.0.1. test/e2e/shared-stores.test.ts covers the stores.
 */
const databases: TestDatabase[] = [];
async function storesOfItsOwn(): Promise<{ DATABASE_URL: string; REDIS_URL: string }> {
  const database = await createDatabase();
  databases.push(database);
  return { DATABASE_URL: database.url, REDIS_URL: '' };
}
afterAll(() => Promise.all(databases.map((database) => database.drop())));

/** Polls `find` until it returns a value (the service writes its log asynchronously). */
async function waitFor(find: () => string | undefined, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting for the log line');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(['fastify', 'express', 'hono'])(
  'reference service on %s through the generated client',
  (adapter) => {
    let service: RunningService;
    let client: ReturnType<typeof createClient>;
    let anonymous: ReturnType<typeof createClient>;

    /** A client signed in as a fresh account. */
    async function signUp(name: string): Promise<ReturnType<typeof createClient>> {
      const email = `${name}-${adapter}-${Date.now()}@example.com`;
      const signedUp = await anonymous.register({ body: { email, password: 'a long enough password' } });
      if (!signedUp.ok) throw new Error(`register failed: ${signedUp.status}`);
      const authorization = `Bearer ${signedUp.data.accessToken}`;
      return createClient({ baseUrl: service.url, headers: { authorization } });
    }

    beforeAll(async () => {
      service = await startService(REPO_ROOT, ['start'], {
        SVC_ADAPTER: adapter,
        NODE_ENV: 'development',
        ...(await storesOfItsOwn()),
      });
      anonymous = createClient({ baseUrl: service.url });
      client = await signUp('owner');
    }, 60_000);

    afterAll(async () => {
      expect(await service.stop()).toBe(0);
    });

    test('prints where it listens, and that it runs in development and how to run in production', () => {
      expect(service.output()).toMatch(
        new RegExp(`notes-api 0\\.1\\.0 listening on http://127\\.0\\.0\\.1:\\d+ \\(${adapter}\\)`),
      );
      const notices = service.output().match(/^ {2}mode {6}NODE_ENV=development, not production: .*$/gm);
      expect(notices).toHaveLength(1);
      expect(notices?.[0]).toContain('In production: NODE_ENV=production and SVC_SECRET');
    });

    test('a create retried with the same idempotency key replays the first note', async () => {
      const headers = { 'idempotency-key': `retry-${adapter}-${Date.now()}` };
      const first = await client.createNote({ body: { title: 'Once' }, headers });
      const again = await client.createNote({ body: { title: 'Once' }, headers });
      if (!first.ok || !again.ok) throw new Error('create failed');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.data.id).toBe(first.data.id);
      // Without a header of its own, each call gets a fresh key: a second create is a second note.
      const other = await client.createNote({ body: { title: 'Once' } });
      if (!other.ok) throw new Error('create failed');
      expect(other.data.id).not.toBe(first.data.id);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      // Leave the store as it was: the paging test counts the notes.
      for (const id of [first.data.id, other.data.id]) await client.deleteNote({ params: { id } });
    });

    test('create, read, change, list and delete a note', async () => {
      const created = await client.createNote({ body: { title: 'First', body: 'Hello' } });
      expect(created.status).toBe(201);
      if (!created.ok) throw new Error('create failed');
      expect(created.data).toMatchObject({ title: 'First', body: 'Hello' });
      expect(created.data.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.headers.get('x-request-id')).toBeTruthy();

      const read = await client.getNote({ params: { id: created.data.id } });
      expect(read.status).toBe(200);
      if (!read.ok) throw new Error('read failed');
      expect(read.data).toEqual(created.data);

      const etag = read.headers.get('etag');
      expect(etag).toMatch(/^"[^"]+"$/);
      const unchanged = await client.getNote({
        params: { id: created.data.id },
        headers: { 'if-none-match': etag! },
      });
      expect(unchanged.status).toBe(304);

      const changed = await client.updateNote({
        params: { id: created.data.id },
        body: { title: 'Renamed' },
      });
      if (!changed.ok) throw new Error('update failed');
      expect(changed.data).toMatchObject({ id: created.data.id, title: 'Renamed', body: 'Hello' });

      const listed = await client.listNotes({ query: { limit: 100 } });
      if (!listed.ok) throw new Error('list failed');
      expect(listed.data.items.map((note) => note.id)).toContain(created.data.id);

      const deleted = await client.deleteNote({ params: { id: created.data.id } });
      expect(deleted.status).toBe(204);
      const gone = await client.getNote({ params: { id: created.data.id } });
      expect(gone.ok).toBe(false);
      if (gone.ok) return;
      expect(gone.status).toBe(404);
      expect(gone.error.code).toBe('NOTE_NOT_FOUND');
      expect(gone.error.message).toBe('Note not found.');
    });

    test('pages through notes newest first with the cursor', async () => {
      const titles = ['p1', 'p2', 'p3', 'p4', 'p5'];
      for (const title of titles) await client.createNote({ body: { title } });
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await client.listNotes({
          query: cursor === undefined ? { limit: 2 } : { limit: 2, cursor },
        });
        if (!result.ok) throw new Error('list failed');
        expect(result.data.items.length).toBeLessThanOrEqual(2);
        seen.push(...result.data.items.map((note) => note.title));
        if (result.data.nextCursor === null) break;
        cursor = result.data.nextCursor;
      }
      const ours = seen.filter((title) => titles.includes(title));
      expect(ours).toEqual([...titles].reverse());
      expect(new Set(seen).size).toBe(seen.length);
    });

    test('invalid input answers a typed HTTP_VALIDATION for each part', async () => {
      const body = await client.createNote({ body: { title: '' } });
      expect(body.status).toBe(400);
      if (body.ok || body.error.code !== 'HTTP_VALIDATION') throw new Error('expected HTTP_VALIDATION');
      expect(body.error.part).toBe('body');
      expect(body.error.issues.map((issue) => issue.path)).toContain('title');
      expect(body.error).not.toHaveProperty('details');

      const query = await client.listNotes({ query: { limit: 0 } });
      if (query.ok || query.error.code !== 'HTTP_VALIDATION') throw new Error('expected HTTP_VALIDATION');
      expect(query.error.part).toBe('query');
      expect(query.error.issues[0]?.path).toBe('limit');

      const params = await client.getNote({ params: { id: 'not-a-uuid' } });
      if (params.ok || params.error.code !== 'HTTP_VALIDATION') throw new Error('expected HTTP_VALIDATION');
      expect(params.error.part).toBe('params');
    });

    test('a forged cursor answers NOTE_CURSOR_INVALID, not a wrong page', async () => {
      const result = await client.listNotes({ query: { cursor: 'bm90LWEtY3Vyc29y' } });
      expect(result.status).toBe(400);
      if (result.ok) return;
      expect(result.error.code).toBe('NOTE_CURSOR_INVALID');
    });

    test('a PATCH with no field is refused', async () => {
      const result = await client.updateNote({ params: { id: MISSING_ID }, body: {} });
      expect(result.status).toBe(400);
    });

    test('serves the health probes and its OpenAPI document', async () => {
      expect(service.output()).toMatch(/OpenAPI\s+http:\/\/127\.0\.0\.1:\d+\/openapi\.json/);
      const live = await fetch(`${service.url}/livez`);
      expect(await live.json()).toEqual({ status: 'ok' });
      expect(live.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(live.headers.get('x-content-type-options')).toBe('nosniff');
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { database: { ok: true } } });
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/livez",status="200"\} 1/);
      const notes = await fetch(`${service.url}/notes`);
      expect(notes.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(notes.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
        info: { title: string };
      };
      expect(document.info.title).toBe('Notes API');
    });

    test('notes are per user: anonymous calls answer AUTH_REQUIRED, another user sees none of them', async () => {
      const mine = await client.createNote({ body: { title: 'Private' } });
      if (!mine.ok) throw new Error('create failed');
      const refused = await anonymous.listNotes({ query: {} });
      expect(refused.status).toBe(401);
      if (!refused.ok) expect(refused.error.code).toBe('AUTH_REQUIRED');
      const other = await signUp('other');
      const theirs = await other.listNotes({ query: { limit: 100 } });
      if (!theirs.ok) throw new Error('list failed');
      expect(theirs.data.items).toEqual([]);
      const read = await other.getNote({ params: { id: mine.data.id } });
      expect(read.status).toBe(404);
      const removed = await other.deleteNote({ params: { id: mine.data.id } });
      expect(removed.status).toBe(404);
      expect((await client.getNote({ params: { id: mine.data.id } })).status).toBe(200);
      await client.deleteNote({ params: { id: mine.data.id } });
    });

    test('team notes: members read them, only owners and admins delete them, non-members are refused', async () => {
      const account = async (name: string) => {
        const email = `${name}-${adapter}-${Date.now()}@example.com`;
        const signedUp = await anonymous.register({ body: { email, password: 'a long enough password' } });
        if (!signedUp.ok) throw new Error(`register failed: ${signedUp.status}`);
        const authorization = `Bearer ${signedUp.data.accessToken}`;
        return {
          email,
          id: signedUp.data.user.id,
          api: createClient({ baseUrl: service.url, headers: { authorization } }),
        };
      };
      const [owner, admin, member, outsider] = await Promise.all(
        ['team-owner', 'team-admin', 'team-member', 'team-outsider'].map(account),
      );
      const team = await owner!.api.createTenant({ body: { name: 'Acme' } });
      if (!team.ok) throw new Error(`createTenant failed: ${team.status}`);
      expect(team.status).toBe(201);
      expect(team.data.role).toBe('owner');
      const tenantId = team.data.id;
      const inTeam = { headers: { 'x-tenant-id': tenantId } };
      for (const [who, role] of [
        [admin!, 'admin'],
        [member!, 'member'],
      ] as const) {
        const added = await owner!.api.addMember({ params: { tenantId }, body: { email: who.email, role } });
        expect(added.status).toBe(201);
      }

      const note = await member!.api.createNote({ body: { title: 'Team plan' }, ...inTeam });
      if (!note.ok) throw new Error(`createNote failed: ${note.status}`);
      expect(note.data.teamId).toBe(tenantId);
      // Every member reads it; it is in nobody's personal notes.
      const read = await admin!.api.getNote({ params: { id: note.data.id }, ...inTeam });
      expect(read.status).toBe(200);
      const personal = await member!.api.listNotes({ query: {} });
      if (!personal.ok) throw new Error('list failed');
      expect(personal.data.items.map((item) => item.id)).not.toContain(note.data.id);
      expect((await member!.api.getNote({ params: { id: note.data.id } })).status).toBe(404);

      // A non-member is refused, and an account route still answers with the foreign tenant named.
      const foreign = await outsider!.api.getNote({ params: { id: note.data.id }, ...inTeam });
      expect(foreign.status).toBe(403);
      if (!foreign.ok) expect(foreign.error.code).toBe('TENANT_ACCESS_DENIED');
      expect((await outsider!.api.me(inTeam)).status).toBe(200);

      const memberDelete = await member!.api.deleteNote({ params: { id: note.data.id }, ...inTeam });
      expect(memberDelete.status).toBe(403);
      if (!memberDelete.ok) expect(memberDelete.error.code).toBe('PERMISSION_DENIED');
      expect((await admin!.api.deleteNote({ params: { id: note.data.id }, ...inTeam })).status).toBe(204);

      // The last owner cannot leave.
      const leave = await owner!.api.leaveTenant({ params: { tenantId } });
      expect(leave.status).toBe(409);
      if (!leave.ok) expect(leave.error.code).toBe('TENANT_LAST_OWNER');
    });

    test('two-factor sign-in: enrol, activate, a code needed at login, each code once, disable', async () => {
      const email = `mfa-${adapter}-${Date.now()}@example.com`;
      const password = 'a long enough password';
      const signedUp = await anonymous.register({ body: { email, password } });
      if (!signedUp.ok) throw new Error(`register failed: ${signedUp.status}`);
      const api = createClient({
        baseUrl: service.url,
        headers: { authorization: `Bearer ${signedUp.data.accessToken}` },
      });
      const enrolled = await api.mfaEnroll();
      if (!enrolled.ok) throw new Error(`enroll failed: ${enrolled.status}`);
      expect(enrolled.headers.get('cache-control')).toBe('no-store');
      const totp = new TOTP({ secret: Secret.fromBase32(enrolled.data.secret) });
      const codeIn = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
      const activated = await api.mfaActivate({ body: { code: codeIn(0) } });
      if (!activated.ok) throw new Error(`activate failed: ${activated.status}`);
      expect(activated.data.recoveryCodes).toHaveLength(10);

      const withoutCode = await anonymous.login({ body: { email, password } });
      expect(withoutCode.status).toBe(401);
      if (!withoutCode.ok) expect(withoutCode.error.code).toBe('AUTH_MFA_REQUIRED');
      // The next step's code (the activation spent this one); then the same code again is refused.
      const code = codeIn(1);
      const signedIn = await anonymous.login({ body: { email, password, mfaCode: code } });
      if (!signedIn.ok) throw new Error(`login failed: ${signedIn.status}`);
      const again = await anonymous.login({ body: { email, password, mfaCode: code } });
      expect(again.status).toBe(401);
      const mfaApi = createClient({
        baseUrl: service.url,
        headers: { authorization: `Bearer ${signedIn.data.accessToken}` },
      });
      const me = await mfaApi.me();
      if (!me.ok) throw new Error(`me failed: ${me.status}`);
      expect(me.data.amr).toEqual(['pwd', 'mfa']);

      const recovery = activated.data.recoveryCodes[0]!;
      expect((await anonymous.login({ body: { email, password, mfaCode: recovery } })).status).toBe(200);
      expect((await anonymous.login({ body: { email, password, mfaCode: recovery } })).status).toBe(401);
      const status = await mfaApi.mfaStatus();
      if (!status.ok) throw new Error(`status failed: ${status.status}`);
      expect(status.data).toEqual({ state: 'enabled', recoveryCodesLeft: 9 });

      const disabled = await mfaApi.mfaDisable({ body: { code: activated.data.recoveryCodes[1]! } });
      expect(disabled.status).toBe(204);
      expect((await anonymous.login({ body: { email, password } })).status).toBe(200);
    });

    test('in development, a reset mail is logged as one JSON line holding the link', async () => {
      const email = `forgetful-${adapter}-${Date.now()}@example.com`;
      const registered = await anonymous.register({ body: { email, password: 'a long enough password' } });
      expect(registered.status, JSON.stringify(registered.ok ? {} : registered.error)).toBe(201);
      const forgot = await anonymous.forgotPassword({ body: { email } });
      expect(forgot.status).toBe(200);
      const line = await waitFor(() =>
        service
          .output()
          .split('\n')
          .find((text) => text.includes(email)),
      );
      const mail = JSON.parse(line) as { to: string; link: string };
      expect(mail.to).toBe(email);
      const token = new URL(mail.link).searchParams.get('token') ?? '';
      expect(mail.link.startsWith(`${service.url}/auth/password/reset?token=`)).toBe(true);
      const reset = await anonymous.resetPassword({ body: { token, password: 'another long password' } });
      expect(reset.status).toBe(200);
      const login = await anonymous.login({ body: { email, password: 'another long password' } });
      expect(login.status).toBe(200);
    });

    test('an unknown route answers the neutral 404 envelope', async () => {
      const response = await fetch(`${service.url}/nope`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Route not found.' } });
    });
  },
);

test('in production the reference service refuses to start without a strong SVC_SECRET', async () => {
  const env = { NODE_ENV: 'production', SVC_SECRET: '', ...(await storesOfItsOwn()) };
  const failure = await startService(REPO_ROOT, ['start'], env).then(
    async (service) => {
      await service.stop();
      return undefined;
    },
    (error: unknown) => String(error),
  );
  expect(failure).toMatch(/AUTH_WEAK_SECRET/);
  expect(failure).toMatch(/SVC_SECRET/);
}, 60_000);
