// `modules.files` composed by createService(): refused without auth or with a wrong setting (CONFIG_INVALID
// naming it), served from the spec alone (upload opt-in, files under the project folder, records in the
// service's database), temporary URLs signed with a key derived from the service secret so that another
// process of the service (here: the next start) honours them, and `scan` turning quarantine on.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { App, RouteDefinition, SvcConfig } from '../../runtime/core.js';
import { memoryDisk } from '../../runtime/files/disks/index.js';
import { fileRoutes } from '../../runtime/files/http/routes.js';
import { filesPlugin } from '../../runtime/files/plugin.js';
import { collectingLogger } from '../../runtime/log/collecting-logger.js';
import { composeService, type ServiceArtifacts, type ServiceOptions } from '../../runtime/service/index.js';
import { freePort } from '../backends.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const DEV = { NODE_ENV: 'development', SVC_SECRET: SECRET };
const definitions: RouteDefinition[] = [];

function configWith(modules: Record<string, unknown>, database = 'memory'): SvcConfig {
  return {
    name: 'files-test',
    version: '1.0.0',
    server: { adapter: 'fastify', port: 0, host: '127.0.0.1', entry: 'src/server.ts' },
    stores: { database },
    modules,
  };
}

const artifacts = (config: SvcConfig): ServiceArtifacts => ({
  loadConfig: () => config,
  routeDefinitions: definitions,
});

let projectDir: string;
beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'svc-files-module-'));
});
afterAll(() => rm(projectDir, { recursive: true, force: true }));

const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const options = (extra: Partial<ServiceOptions<object>> = {}): ServiceOptions<object> => ({
  handlers: {},
  env: DEV,
  projectDir,
  logger: collectingLogger(),
  ...extra,
});

async function listen(config: SvcConfig, extra: Partial<ServiceOptions<object>> = {}) {
  const app = await composeService(artifacts(config), options(extra));
  apps.push(app);
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

async function signUp(url: string, email = 'ada@example.com'): Promise<string> {
  const response = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long enough password' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function uploadText(url: string, token: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), 'hello.txt');
  return fetch(`${url}/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
}

const refusal = (message: RegExp) => ({ code: 'CONFIG_INVALID', message: expect.stringMatching(message) });

describe('modules.files settings', () => {
  test('refuses to start without auth, naming the module', async () => {
    await expect(composeService(artifacts(configWith({ files: true })), options())).rejects.toMatchObject(
      refusal(/^modules\.files: .*enable modules\.auth/),
    );
  });

  test('refuses unknown keys with a hint, and values that are not what they should be', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ disc: {} }, /unknown option "disc" \(did you mean "disk"\?\)/],
      [{ disk: { driver: 's3' } }, /disk\.driver must be local or memory/],
      [{ disk: { driver: 'memory', root: 'x' } }, /modules\.files\.disk: unknown option "root"/],
      [{ maxTotalBytes: '10 megabytes' }, /maxTotalBytes must be a number of bytes or a size/],
      [{ routes: { removeFile: false } }, /routes: no file route or setting "removeFile"/],
      [{ routes: { upload: { maxBytes: 0 } } }, /upload\.maxBytes/],
      [{ routes: { upload: { maxBytes: '1KiB', maxFile: 2 } } }, /unknown option "maxFile"/],
      [{ routes: { maxUrlTtl: '500ms' } }, /maxUrlTtl/],
      [{ routes: { maxUrlTtl: 'soon' } }, /maxUrlTtl must be .*duration/],
      [{ routes: { download: 'no' } }, /download must be true or false/],
      [{ routes: { upload: true } }, /upload must be false or \{ maxBytes/],
      [{ scan: 'http://scanner' }, /scan must be clamd:\/\/host:port/],
      [{ requireScan: 'yes' }, /requireScan must be true or false/],
    ];
    for (const [files, message] of cases) {
      await expect(
        composeService(artifacts(configWith({ auth: true, files })), options()),
        JSON.stringify(files),
      ).rejects.toMatchObject(refusal(message));
    }
  });
});

describe('modules.files served from the spec', () => {
  test('upload is opt-in; files land under the project; handlers get the file service', async () => {
    let seen: unknown;
    const off = await listen(configWith({ auth: true, files: { disk: { driver: 'memory' } } }));
    const offToken = await signUp(off.url);
    expect((await uploadText(off.url, offToken, 'x')).status).toBe(405);

    const { url } = await listen(
      configWith({
        auth: true,
        files: { disk: { driver: 'local', root: 'uploads' }, routes: { upload: { maxBytes: '1KiB' } } },
      }),
      { handlers: (service) => ((seen = service.files), {}) },
    );
    expect(seen).toBeDefined();
    const token = await signUp(url);
    const uploaded = await uploadText(url, token, 'hello');
    expect(uploaded.status).toBe(201);
    const [file] = ((await uploaded.json()) as { items: { id: string }[] }).items;
    expect(existsSync(join(projectDir, 'uploads', '@single', file!.id))).toBe(true);
    expect((await uploadText(url, token, 'x'.repeat(1025))).status).toBe(413);
  });

  test('temporary URLs of one start are honoured by the next (key from the secret, records in the database)', async () => {
    const dir = await mkdtemp(join(projectDir, 'restart-'));
    const config = configWith(
      {
        auth: true,
        files: { disk: { driver: 'local', root: 'files' }, routes: { upload: { maxBytes: '1KiB' } } },
      },
      `pglite:${join(dir, 'data')}`,
    );
    const first = await listen(config, { projectDir: dir });
    const token = await signUp(first.url);
    const [file] = (
      (await (await uploadText(first.url, token, 'kept')).json()) as { items: { id: string }[] }
    ).items;
    const made = await fetch(`${first.url}/files/${file!.id}/url`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresIn: '5m' }),
    });
    const { url: signed } = (await made.json()) as { url: string };
    await first.app.close();

    const second = await listen(config, { projectDir: dir });
    const opened = await fetch(`${second.url}${signed}`);
    expect([opened.status, await opened.text()]).toEqual([200, 'kept']);
    const other = await listen(
      configWith({ auth: true, files: { disk: { driver: 'local', root: 'files' } } }, 'memory'),
      {
        projectDir: dir,
        env: { ...DEV, SVC_SECRET: `${SECRET}-another` },
      },
    );
    expect((await fetch(`${other.url}${signed}`)).status).toBe(403);
  });

  test('scan turns quarantine on: an upload the scanner could not check is not served', async () => {
    const port = await freePort();
    const { url } = await listen(
      configWith({
        auth: true,
        files: {
          disk: { driver: 'memory' },
          scan: `clamd://127.0.0.1:${port}`,
          routes: { upload: { maxBytes: '1KiB' } },
        },
      }),
    );
    const token = await signUp(url);
    const [file] = ((await (await uploadText(url, token, 'hello')).json()) as { items: { id: string }[] })
      .items;
    const content = await fetch(`${url}/files/${file!.id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(content.status).toBe(423);
  });
});

describe('filesPlugin() and fileRoutes() options', () => {
  test('a disk may be named from `disks`; an unknown name, key or route option is refused naming it', async () => {
    const disk = memoryDisk();
    const plugin = filesPlugin({ disk: 'uploads', disks: { uploads: disk } });
    expect(plugin.files.disk).toBe(disk);
    expect(() => filesPlugin({ disk: 'other', disks: { uploads: disk } })).toThrow(
      expect.objectContaining({
        code: 'OPTION_INVALID',
        message: expect.stringMatching(/disk must be a Disk or one of uploads; got "other"/),
      }),
    );
    expect(() => filesPlugin({ disk, requireScans: true } as never)).toThrow(
      expect.objectContaining({
        code: 'OPTION_UNKNOWN',
        message: expect.stringMatching(/did you mean "requireScan"/),
      }),
    );
    for (const [routes, option] of [
      [{ maxUrlTtl: '500ms' }, 'maxUrlTtl'],
      [{ maxUrlTtl: '8d' }, 'maxUrlTtl'],
      [{ upload: { maxBytes: 0 } }, 'upload.maxBytes'],
      [{ upload: { maxBytes: 10, maxFiles: 0 } }, 'upload.maxFiles'],
      [{ upload: { maxBytes: 10, allowedTypes: ['image'] } }, 'upload.allowedTypes'],
      [{ omit: ['removeFile'] }, 'omit'],
      [{ authorize: true }, 'authorize'],
    ] as const) {
      expect(() => filesPlugin({ disk, routes: routes as never }), option).toThrow(
        expect.objectContaining({
          code: 'OPTION_INVALID',
          message: expect.stringContaining(`fileRoutes(): ${option} must be`),
        }),
      );
    }
  });

  test('fileRoutes takes its options first, or a file service then options; nothing else', () => {
    const plugin = filesPlugin({ disk: memoryDisk(), routes: false });
    const ids = (routes: { id?: string }[]) => routes.map((route) => route.id);
    expect(ids(fileRoutes({ upload: { maxBytes: 10 } }))).toContain('uploadFiles');
    expect(ids(fileRoutes(plugin.files, { upload: { maxBytes: 10 } }))).toContain('uploadFiles');
    expect(ids(fileRoutes())).not.toContain('uploadFiles');
    // Options in first place with more options after them: the first cannot be the service.
    expect(() => fileRoutes({ shared: true } as never, { upload: { maxBytes: 10 } })).toThrow(
      expect.objectContaining({
        code: 'OPTION_INVALID',
        message: expect.stringContaining('fileRoutes(): files'),
      }),
    );
    expect(() =>
      fileRoutes({ shared: true, maxUrlTtl: '10m', upload: { maxBytes: 1 }, bogus: 1 } as never),
    ).toThrow(expect.objectContaining({ code: 'OPTION_UNKNOWN' }));
    expect(() => fileRoutes(null as never)).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });

  test('the service answers only once the app booted, and says so before', async () => {
    const plugin = filesPlugin({ disk: memoryDisk() });
    await expect(plugin.files.list()).rejects.toThrow(/before the app booted/);
  });
});
