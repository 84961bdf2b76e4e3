// The file-route rule suites over HTTP: the app of files-harness.ts (auth, optional tenancy, filesPlugin on a
// memory disk with a movable clock, two users), plus what those suites wait on instead of sleeping: every file
// event of the app's hook bus (file:scanned included) as a promise per file, and the moment the store records
// why a scan gave no verdict. Also a multipart body written by hand, for part headers fetch will not send.
import { Auth, authPlugin, tenancyPlugin, type Plugin, type Route } from 'svckit';
import { memoryDisk } from '../../runtime/files/disks/index.js';
import { filesPlugin, type FilesPluginOptions } from '../../runtime/files/plugin.js';
import { INTERNAL_SCAN_KEY, type FileRecord } from '../../runtime/files/record.js';
import type { FileEventName } from '../../runtime/files/service/api.js';
import { MemoryFileStore } from '../../runtime/files/store/memory-store.js';
import type { FileRecordPatch } from '../../runtime/files/store/store.js';
import { FAST_HASH, SECRET, register } from './auth-harness.js';
import { UPLOAD, type Caller, type FilesServer } from './files-harness.js';
import { call, withServer, type AdapterUnderTest } from './harness.js';

/** Promises settled by a later signal, asked for before or after it came. */
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

/** A memory store that says when a scan problem (the internal scan entry) was recorded for a file. */
export class WatchedFileStore extends MemoryFileStore {
  private readonly problems = new Signals<FileRecord>();

  override async update(
    tenantId: string,
    id: string,
    patch: FileRecordPatch,
  ): Promise<FileRecord | undefined> {
    const record = await super.update(tenantId, id, patch);
    if (record !== undefined && patch.metadata !== undefined && INTERNAL_SCAN_KEY in patch.metadata)
      this.problems.signal(id, record);
    return record;
  }

  /** Resolves with the record once a scan problem was recorded for `id`. */
  problemNoted(id: string): Promise<FileRecord> {
    return this.problems.next(id);
  }
}

export interface RulesServer extends FilesServer {
  /** Resolves once the app's hook bus carried `event` for the file `id` (before or after this call). */
  announced(event: FileEventName, id: string): Promise<void>;
}

export interface RulesOptions {
  files?: Partial<FilesPluginOptions>;
  tenancy?: boolean;
  routes?: Route[];
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

export async function withRulesFiles(
  adapter: AdapterUnderTest,
  body: (server: RulesServer) => Promise<void>,
  options: RulesOptions = {},
): Promise<void> {
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
  const disk = memoryDisk();
  let now = 1_900_000_000_000;
  const plugin = filesPlugin({ disk, clock: () => now, routes: { upload: UPLOAD }, ...options.files });
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

const BOUNDARY = 'svc-rules-boundary';

/** One file part with exactly the given part headers (Content-Length included), as a multipart body. */
export function rawFilePart(
  url: string,
  part: { headers: string[]; bytes: Buffer | string },
  headers: Record<string, string>,
) {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\n` +
        'Content-Disposition: form-data; name="file"; filename="raw.bin"\r\n' +
        'Content-Type: application/octet-stream\r\n' +
        part.headers.map((line) => `${line}\r\n`).join('') +
        '\r\n',
    ),
    Buffer.from(part.bytes),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  return call(`${url}/files`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
}
