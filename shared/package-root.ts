// The root of the installed svckit package, found from this module's own location so it works from the
// TypeScript sources and from the compiled dist/ alike.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'svckit'
    ) {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('svckit: cannot find the package root (package.json named svckit)');
    dir = parent;
  }
}

let version: string | undefined;

/** svckit's own version, from its package.json (`svc --version`, `svc init`'s dependency, McpClient's clientInfo). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  return version;
}
