// The reference service's files, end to end through the generated client: a team member uploads images and
// PDFs (sniffed, 10 MiB each at most, 100 MiB per team) into the team named by x-tenant-id, lists and
// downloads their own, and shares one through a signed link that works without credentials. With SVC_CLAMD
// set, every upload is scanned by a real clamd and stays quarantined until it is found clean.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type Client } from '../../generated/client.js';
import { loadConfig } from '../../generated/config.js';
import type { App } from '../../runtime/app/app.js';
import { buildApp } from '../../src/app.js';
import { createDatabase, type TestDatabase } from '../backends.js';
import { startClamd, type TestClamd } from '../helpers/clamd.js';
import { html, png } from '../runtime/files/sniff-samples.js';

const SECRET = 'e2e-notes-files-secret-0123456789abcdef';
const MIB = 1024 * 1024;
/** Matched by the test clamd's signature: the stand-in for a virus. */
const MARKER = Buffer.from('SVC-E2E-INFECTED-MARKER-5b1c');

interface Running {
  app: App;
  url: string;
  filesDir: string;
  database: TestDatabase;
}

async function start(extra: Record<string, string> = {}): Promise<Running> {
  const database = await createDatabase();
  const filesDir = await mkdtemp(join(tmpdir(), 'svc-e2e-files-'));
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    SVC_SECRET: SECRET,
    DATABASE_URL: database.url,
    REDIS_URL: '',
    RATE_LIMIT: '100000',
    SVC_FILES_DIR: filesDir,
    SVC_CLAMD: '',
    ...extra,
  };
  const app = await buildApp(loadConfig(env), { env });
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, filesDir, database };
}

async function stop(running: Running | undefined): Promise<void> {
  if (running === undefined) return;
  await running.app.close();
  await running.database.drop();
  await rm(running.filesDir, { recursive: true, force: true });
}

/** A registered account's client, and the same with its team named. */
async function member(url: string, email: string): Promise<{ client: Client; token: string }> {
  const anonymous = createClient({ baseUrl: url, retry: false });
  const registered = await anonymous.register({ body: { email, password: 'a long enough password' } });
  if (!registered.ok) throw new Error(`register failed: ${registered.status}`);
  const token = registered.data.accessToken;
  return {
    client: createClient({ baseUrl: url, headers: { authorization: `Bearer ${token}` }, retry: false }),
    token,
  };
}

function inTeam(url: string, token: string, teamId: string): Client {
  return createClient({
    baseUrl: url,
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': teamId },
    retry: false,
  });
}

const part = (bytes: Uint8Array, filename: string, type: string, field = 'file') => ({
  field,
  file: new Blob([bytes]),
  filename,
  type,
});

/** A PNG of exactly `size` bytes: the signature and header, then padding the sniffer does not read. */
function pngOfSize(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(png);
  return bytes;
}

describe('the reference service, files', () => {
  let running: Running;
  let owner: Client;
  let ownerToken: string;
  let teamId: string;

  beforeAll(async () => {
    running = await start();
    ({ client: owner, token: ownerToken } = await member(running.url, 'files-owner@example.com'));
    const team = await owner.createTenant({ body: { name: 'Files team' } });
    if (!team.ok) throw new Error(`createTenant failed: ${team.status}`);
    teamId = team.data.id;
  }, 60_000);

  afterAll(() => stop(running));

  test('a member uploads several files in one request, lists, downloads and shares them by signed link', async () => {
    const client = inTeam(running.url, ownerToken, teamId);
    const uploaded = await client.uploadFiles({
      body: {
        files: [
          part(png, 'photo.png', 'image/png', 'photo'),
          part(Buffer.from('%PDF-1.7\n%%EOF\n'), 'notes.pdf', 'application/pdf', 'anything'),
        ],
      },
    });
    expect(uploaded.ok && uploaded.status).toBe(201);
    if (!uploaded.ok) return;
    const [photo, pdf] = uploaded.data.items;
    expect([photo?.name, photo?.contentType, photo?.size]).toEqual([
      'photo.png',
      'image/png',
      png.byteLength,
    ]);
    expect(pdf?.contentType).toBe('application/pdf');
    // The public projection only: where the bytes are, their checksum and the owners stay on the server.
    expect(Object.keys(photo ?? {}).sort()).toEqual(['contentType', 'createdAt', 'id', 'name', 'size']);

    const listed = await client.listFiles({});
    expect(listed.ok && listed.data.items.map((file) => file.name)).toEqual(['photo.png', 'notes.pdf']);

    const content = await fetch(`${running.url}/files/${photo!.id}/content`, {
      headers: { authorization: `Bearer ${ownerToken}`, 'x-tenant-id': teamId },
    });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(Buffer.from(await content.arrayBuffer()).equals(Buffer.from(png))).toBe(true);

    const link = await client.createFileUrl({ params: { id: photo!.id }, body: { expiresIn: '15m' } });
    expect(link.ok).toBe(true);
    if (!link.ok) return;
    const expiresIn = Date.parse(link.data.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    // The link is the credential: no token, no team header.
    const shared = await fetch(new URL(link.data.url, running.url));
    expect(shared.status).toBe(200);
    expect(Buffer.from(await shared.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    const tampered = new URL(link.data.url, running.url);
    tampered.searchParams.set('disposition', 'inline');
    expect((await fetch(tampered)).status).toBe(403);

    // The bytes sit in the team's own folder under SVC_FILES_DIR.
    expect(await readdir(running.filesDir)).toEqual([teamId]);
  });

  test('file routes need a team; another member does not see the owner’s files', async () => {
    const noTeam = await owner.listFiles({});
    expect(!noTeam.ok && [noTeam.status, noTeam.error?.code]).toEqual([400, 'FILE_TENANT_REQUIRED']);

    const { token: strangerToken } = await member(running.url, 'files-stranger@example.com');
    const strangerInTeam = await inTeam(running.url, strangerToken, teamId).listFiles({});
    expect(!strangerInTeam.ok && strangerInTeam.status).toBe(403);
    const added = await inTeam(running.url, ownerToken, teamId).addMember({
      params: { tenantId: teamId },
      body: { email: 'files-stranger@example.com', role: 'member' },
    });
    expect(added.ok).toBe(true);
    const asMember = inTeam(running.url, strangerToken, teamId);
    const ownerFiles = await inTeam(running.url, ownerToken, teamId).listFiles({});
    const someId = ownerFiles.ok ? ownerFiles.data.items[0]?.id : undefined;
    expect(someId).toBeDefined();
    const memberList = await asMember.listFiles({});
    expect(memberList.ok && memberList.data.items).toEqual([]);
    const reached = await asMember.getFile({ params: { id: someId! } });
    expect(!reached.ok && [reached.status, reached.error?.code]).toEqual([404, 'FILE_NOT_FOUND']);
  });

  test('refuses a disguised page, other types, and files over 10 MiB; exactly 10 MiB is accepted', async () => {
    const client = inTeam(running.url, ownerToken, teamId);
    const disguised = await client.uploadFiles({ body: { files: [part(html, 'cat.png', 'image/png')] } });
    expect(!disguised.ok && [disguised.status, disguised.error?.code]).toEqual([415, 'FILE_TYPE_MISMATCH']);
    const text = await client.uploadFiles({
      body: { files: [part(Buffer.from('hello'), 'a.txt', 'text/plain')] },
    });
    expect(!text.ok && [text.status, text.error?.code]).toEqual([415, 'FILE_TYPE_NOT_ALLOWED']);
    const promoted = await client.uploadFiles({
      body: { files: [part(png, 'no-type', 'application/octet-stream')] },
    });
    expect(promoted.ok && promoted.data.items[0]?.contentType).toBe('image/png');
    expect(promoted.ok && promoted.data.items[0]?.metadata).toEqual({
      declaredType: 'application/octet-stream',
    });

    const exact = await client.uploadFiles({
      body: { files: [part(pngOfSize(10 * MIB), 'big.png', 'image/png')] },
    });
    expect(exact.ok && exact.data.items[0]?.size).toBe(10 * MIB);
    const over = await client.uploadFiles({
      body: { files: [part(pngOfSize(10 * MIB + 1), 'bigger.png', 'image/png')] },
    });
    expect(!over.ok && [over.status, over.error?.code]).toEqual([413, 'FILE_TOO_LARGE']);
  });

  test('each team has 100 MiB', async () => {
    const { client: account, token } = await member(running.url, 'files-quota@example.com');
    const team = await account.createTenant({ body: { name: 'Quota team' } });
    if (!team.ok) throw new Error('createTenant failed');
    const client = inTeam(running.url, token, team.data.id);
    const tenMiB = Array.from({ length: 5 }, (_, index) =>
      part(pngOfSize(10 * MIB), `p${index}.png`, 'image/png'),
    );
    for (let round = 0; round < 2; round++) {
      const stored = await client.uploadFiles({ body: { files: tenMiB } });
      expect(stored.ok && stored.data.items.length).toBe(5);
    }
    const full = await client.uploadFiles({ body: { files: [part(png, 'one-more.png', 'image/png')] } });
    expect(!full.ok && [full.status, full.error?.code]).toEqual([402, 'FILE_QUOTA_EXCEEDED']);
  });
});

describe('the reference service, files scanned by clamd (SVC_CLAMD)', () => {
  let clamd: TestClamd;
  let running: Running;
  let client: Client;

  beforeAll(async () => {
    clamd = await startClamd({ signatures: [{ name: 'Svc.E2E.Marker', bytes: MARKER }] });
    running = await start({ SVC_CLAMD: clamd.url });
    const { client: owner, token } = await member(running.url, 'scan-owner@example.com');
    const team = await owner.createTenant({ body: { name: 'Scanned team' } });
    if (!team.ok) throw new Error('createTenant failed');
    client = inTeam(running.url, token, team.data.id);
  }, 60_000);

  afterAll(async () => {
    await stop(running);
    await clamd?.stop();
  });

  async function upload(bytes: Uint8Array, name: string): Promise<string> {
    const done = await client.uploadFiles({ body: { files: [part(bytes, name, 'image/png')] } });
    if (!done.ok) throw new Error(`upload failed: ${done.status}`);
    return done.data.items[0]!.id;
  }

  test('an infected file stays refused (403), a clean one becomes downloadable', async () => {
    const infectedBytes = Buffer.concat([Buffer.from(png), MARKER]);
    const [infectedId, cleanId] = await Promise.all([
      upload(infectedBytes, 'infected.png'),
      upload(png, 'clean.png'),
    ]);
    // Scans run after the upload answered: wait for both verdicts through the listing, which shows them.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const listed = await client.listFiles({});
      const states = listed.ok ? listed.data.items.map((file) => file.scan?.clean) : [];
      if (states.length === 2 && states.every((state) => state !== undefined)) break;
      if (Date.now() > deadline) throw new Error(`no verdicts after 20 s: ${JSON.stringify(states)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const infected = await client.downloadFile({ params: { id: infectedId } });
    expect(!infected.ok && [infected.status, infected.error?.code]).toEqual([403, 'FILE_INFECTED']);
    const clean = await client.downloadFile({ params: { id: cleanId } });
    expect(clean.ok && clean.status).toBe(200);
  });

  test('with clamd stopped, new files stay quarantined (423) and the service keeps answering', async () => {
    await clamd.stop();
    const id = await upload(png, 'while-down.png');
    const quarantined = await client.downloadFile({ params: { id } });
    expect(!quarantined.ok && [quarantined.status, quarantined.error?.code]).toEqual([
      423,
      'FILE_NOT_SCANNED',
    ]);
    const link = await client.createFileUrl({ params: { id }, body: {} });
    expect(!link.ok && link.status).toBe(423);
    const listed = await client.listFiles({});
    expect(listed.ok && listed.data.items.some((file) => file.id === id && file.scan === undefined)).toBe(
      true,
    );
  });
});
