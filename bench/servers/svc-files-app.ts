// What the file-service bench servers share: a localDisk in the directory the runner passes
// (BENCH_UPLOAD_DIR, deleted after each round), files up to 2 GiB with content sniffing on, as a real
// deployment takes them, and auth on in-memory stores with the bench's signing secret, so the runner's
// bearer token (auth-token.ts) signs in its user.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auth, authPlugin, createApp, type Plugin, type Route } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { filesPlugin, localDisk, type FileRoutesOptions, type FileService } from 'svckit/files';
import { BENCH_ACCESS_TTL, BENCH_AUTH_SECRET } from './auth-secret.js';
import { announce } from './shared.js';
import { UPLOAD_MAX_BYTES } from './upload-target.js';

/** Where the disk keeps its objects: inside the round's directory, which the runner deletes. */
function filesRoot(): string {
  return join(process.env.BENCH_UPLOAD_DIR ?? tmpdir(), 'files');
}

export interface FilesBenchServer {
  /** The file routes' options; false mounts none. */
  routes: false | FileRoutesOptions;
  /** The app's own routes, made with the file service. */
  appRoutes?: (files: FileService) => Route[];
}

export async function startFilesBenchServer(options: FilesBenchServer): Promise<void> {
  const auth = new Auth({ secret: BENCH_AUTH_SECRET, accessTtl: BENCH_ACCESS_TTL });
  const files = filesPlugin({
    disk: localDisk({ root: filesRoot() }),
    validate: { maxSize: UPLOAD_MAX_BYTES, sniff: true },
    routes: options.routes,
  });
  const plugins: Plugin[] = [authPlugin({ auth, routes: false }), files];
  const app = createApp({ name: 'bench-files' });
  for (const plugin of plugins) app.register(plugin);
  app.register(fastifyPlugin({ routes: options.appRoutes?.(files.files) ?? [] }));
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  announce(url);
}
