// Shared by the file-route suites over HTTP: an app with auth, optionally tenancy, and filesPlugin on a
// memory disk with a movable clock, two signed-up users, and multipart request helpers.
import { expect } from 'vitest';
import { Auth, authPlugin, tenancyPlugin, type Plugin, type Route } from 'svckit';
import { memoryDisk, type MemoryDisk } from '../../runtime/files/disks/index.js';
import { filesPlugin, type FilesPluginOptions } from '../../runtime/files/plugin.js';
import type { FileService } from '../../runtime/files/service/api.js';
import { FAST_HASH, SECRET, bearer, codeOf, register } from './auth-harness.js';
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
}

export interface ServerOptions {
  files?: Partial<FilesPluginOptions>;
  tenancy?: boolean;
  /** The app's own routes. */
  routes?: Route[];
}

/** Records the file events of the app's hook bus. */
function eventRecorder(events: string[]): Plugin {
  return {
    name: 'record-file-events',
    setup(app) {
      app.hooks.on('file:uploaded', ({ file }) => void events.push(`file:uploaded ${file.name}`));
      app.hooks.on('file:deleted', ({ id }) => void events.push(`file:deleted ${id}`));
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
  const plugins: Plugin[] = [authPlugin({ auth }), eventRecorder(events)];
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
