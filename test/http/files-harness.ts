// Shared by the file-route suites over HTTP: an app with auth, optionally tenancy, and filesPlugin on a
// memory disk with a movable clock, two signed-up users, and multipart request helpers.
import { expect } from 'vitest';
import { Auth, authPlugin, tenancyPlugin, type Plugin, type Route } from 'svckit';
import { memoryDisk, type MemoryDisk } from '../../runtime/files/disks/index.js';
import { filesPlugin, type FilesPluginOptions } from '../../runtime/files/plugin.js';
import type { FileEventName, FileService } from '../../runtime/files/service/api.js';
import { FAST_HASH, SECRET, bearer, codeOf, post, register } from './auth-harness.js';
import { call, withServer, type AdapterUnderTest } from './harness.js';

export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082',
  'hex',
);
export const HTML = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');

export interface Caller {
  token: string;
  id: string;
}

export interface FilesServer {
  url: string;
  files: FileService;
  disk: MemoryDisk;
  alice: Caller;
  bob: Caller;
  /** Moves the file service's clock (temporary URL expiry). */
  advance(ms: number): void;
  /** The file events the app's hook bus carried, as `<event> <file name or id>`. */
  events: string[];
  /** Resolves once the app's hook bus carried `event` for the file `id` (before or after this call). */
  announced(event: FileEventName, id: string): Promise<void>;
}

export interface ServerOptions {
  files?: Partial<FilesPluginOptions>;
  tenancy?: boolean;
  /** The app's own routes. */
  routes?: Route[];
}

export /** Promises settled by a later signal, asked for before or after it came. */
class Signals<T> {
  private readonly seen = new Map<string, T>();
  private readonly waiting = new Map<string, ((value: T) => void)[]>();

  signal(key: string, value: T): void {
    this.seen.set(key, value);
    for (const resolve of this.waiting.get(key) ?? []) resolve(value);
    this.waiting.delete(key);
  }

  next(key: string): Promise<T> {
    if (this.seen.has(key)) return Promise.resolve(this.seen.get(key)!);
    return new Promise((resolve) => {
      const list = this.waiting.get(key) ?? [];
      list.push(resolve);
      this.waiting.set(key, list);
    });
  }
}

/** Records each file event of the hook bus as `<event> <file name or id>` and signals it per file id. */
function eventWatcher(events: string[], signals: Signals<void>): Plugin {
  return {
    name: 'watch-file-events',
    setup(app) {
      app.hooks.on('file:uploaded', ({ file }) => {
        events.push(`file:uploaded ${file.name}`);
        signals.signal(`file:uploaded ${file.id}`, undefined);
      });
      app.hooks.on('file:scanned', ({ file }) => {
        events.push(`file:scanned ${file.name} ${file.scan?.clean === true ? 'clean' : 'infected'}`);
        signals.signal(`file:scanned ${file.id}`, undefined);
      });
      app.hooks.on('file:deleted', ({ id }) => {
        events.push(`file:deleted ${id}`);
        signals.signal(`file:deleted ${id}`, undefined);
      });
    },
  };
}

export const UPLOAD = { maxBytes: 1024, maxFiles: 3 };

export async function withFiles(
  adapter: AdapterUnderTest,
  body: (server: FilesServer) => Promise<void>,
  options: ServerOptions = {},
): Promise<void> {
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
  const disk = memoryDisk();
  let now = 1_900_000_000_000;
  const plugin = filesPlugin({
    disk,
    clock: () => now,
    routes: { upload: UPLOAD },
    ...options.files,
  });
  const events: string[] = [];
  const signals = new Signals<void>();
  const plugins: Plugin[] = [authPlugin({ auth }), eventWatcher(events, signals)];
  if (options.tenancy === true) plugins.push(tenancyPlugin({ users: auth.users }));
  plugins.push(plugin);
  await withServer(adapter, { routes: options.routes ?? [], plugins }, async (url) => {
    const account = async (name: string): Promise<Caller> => {
      const signed = await register(url, { email: `${name}@example.com`, password: 'correct horse battery' });
      return { token: signed.accessToken, id: signed.user.id };
    };
    const [alice, bob] = await Promise.all([account('alice'), account('bob')]);
    await body({
      url,
      files: plugin.files,
      disk,
      alice: alice!,
      bob: bob!,
      advance: (ms) => void (now += ms),
      events,
      announced: (event, id) => signals.next(`${event} ${id}`),
    });
  });
}

export interface Part {
  name: string;
  type: string;
  bytes: Buffer | string;
}

export function upload(url: string, parts: Part[], headers: Record<string, string>) {
  const form = new FormData();
  for (const part of parts) form.append('file', new Blob([part.bytes], { type: part.type }), part.name);
  form.append('note', 'ignored');
  return call(`${url}/files`, { method: 'POST', body: form, headers });
}

export async function uploadOne(
  server: FilesServer,
  who: Caller,
  part: Part,
  headers: Record<string, string> = {},
) {
  const answer = await upload(server.url, [part], { ...bearer(who.token), ...headers });
  expect(answer.status, answer.text).toBe(201);
  return (answer.json as { items: { id: string }[] }).items[0]!.id;
}

export const status = (response: { status: number; json: unknown }) => [
  response.status,
  codeOf(response.json),
];
export const del = (url: string, path: string, headers: Record<string, string>) =>
  call(`${url}${path}`, { method: 'DELETE', headers });
export const urlOf = (answer: { json: unknown }) => (answer.json as { url: string }).url;
export const TEXT: Part = { name: 'notes.txt', type: 'text/plain', bytes: 'hello, files' };

/** Makes a tenant as the caller of `headers` (its owner) and answers its id. */
export async function createTenant(
  url: string,
  name: string,
  headers: Record<string, string>,
): Promise<string> {
  const made = await post(url, '/tenants', { name }, headers);
  if (made.status !== 201) throw new Error(`POST /tenants: ${made.status} ${made.text}`);
  return (made.json as { id: string }).id;
}

/** Uploads a PNG declared as octet-stream and checks it was promoted to image/png. */
export async function expectPromotedPng(url: string, headers: Record<string, string>): Promise<void> {
  const promoted = await upload(
    url,
    [{ name: 'cat', type: 'application/octet-stream', bytes: PNG }],
    headers,
  );
  expect(promoted.status, promoted.text).toBe(201);
  expect(promoted.json).toMatchObject({
    items: [{ contentType: 'image/png', metadata: { declaredType: 'application/octet-stream' } }],
  });
}
