// Files that ship with svckit (the built-in catalog, the published schemas), found from this module's own
// location so it works from the TypeScript sources and from the compiled dist/ alike.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SchemaObject } from './structure.js';

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

/** spec/errors.yaml of this package. */
export function defaultCatalogFile(): string {
  return join(packageRoot(), 'spec', 'errors.yaml');
}

export const SVC_SCHEMA = 'svc.schema.json';
export const CATALOG_SCHEMA = 'catalog.schema.json';

let schemas: Map<string, SchemaObject> | undefined;

/** The published JSON Schemas by file name, read once. */
export function publishedSchemas(): ReadonlyMap<string, SchemaObject> {
  if (schemas) return schemas;
  schemas = new Map();
  for (const name of [SVC_SCHEMA, CATALOG_SCHEMA]) {
    schemas.set(name, JSON.parse(readFileSync(join(packageRoot(), 'spec', name), 'utf8')) as SchemaObject);
  }
  return schemas;
}
