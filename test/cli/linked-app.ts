// An app made by `svc init` whose node_modules is made of symlinks into this checkout instead of `npm install`:
// the app's commands (`npm test`, `npm start`, tsc) then resolve svckit, TypeScript and @types/node exactly as
// installed, in milliseconds and without the network. (init.test.ts installs one app for real, proving the
// README's `npm install`.)
import { cp, mkdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './run-svc.js';

/** node_modules entries an init app needs: package path in the app → its folder in this checkout. */
const LINKED_PACKAGES: Record<string, string> = {
  svckit: REPO_ROOT,
  typescript: join(REPO_ROOT, 'node_modules', 'typescript'),
  '@types/node': join(REPO_ROOT, 'node_modules', '@types', 'node'),
};

/** The binaries npm would put on the scripts' PATH: name → file inside the app's node_modules. */
const LINKED_BINARIES: Record<string, string> = {
  svc: 'svckit/bin/svc.js',
  tsc: 'typescript/bin/tsc',
};

/** Links the package at `target` into `app`/node_modules as `name` (`@prisma/client`, `svckit`). */
export async function linkPackage(app: string, name: string, target: string): Promise<void> {
  const link = join(app, 'node_modules', name);
  await mkdir(dirname(link), { recursive: true });
  await symlink(target, link, 'dir');
}

/** Links what `npm install` would put in an init app's node_modules: its packages and the svc and tsc binaries. */
export async function linkNodeModules(app: string): Promise<void> {
  for (const [name, target] of Object.entries(LINKED_PACKAGES)) await linkPackage(app, name, target);
  const bin = join(app, 'node_modules', '.bin');
  await mkdir(bin, { recursive: true });
  for (const [name, file] of Object.entries(LINKED_BINARIES)) {
    await symlink(join('..', file), join(bin, name));
  }
}

/**
 * A fresh copy of the app at `source` at `target` (symlinks copied as links, so the copy resolves the same
 * packages): several apps from one `svc init`, each as it was just made.
 */
export function copyApp(source: string, target: string): Promise<void> {
  return cp(source, target, { recursive: true, verbatimSymlinks: true });
}

/**
 * This process's environment for an app's commands, without what the test machine may have set for other
 * tests: a DATABASE_URL or REDIS_URL (the app keeps its state in its own .svc/data), SVC_PGLITE_DIR (`memory`
 * would lose the rows a restart must find), an adapter, a secret or a PORT.
 */
export function appEnv(added: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'SVC_PGLITE_DIR', 'SVC_ADAPTER', 'SVC_SECRET', 'PORT']) {
    delete env[name];
  }
  return { ...env, ...added };
}
