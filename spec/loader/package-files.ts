// Files that ship with svckit (the built-in catalog, the published schemas), found from the package root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import type { SchemaObject } from './structure.js';

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
