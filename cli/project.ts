// Where the project is and how to run its TypeScript: shared by build, start, dev, test and generate:docs.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../shared/package-root.js';
import { SPEC_FILE } from '../shared/spec-file.js';

export { SPEC_FILE };

/**
 * Root of the svckit package this CLI belongs to (the folder holding its package.json, templates/ and spec/),
 * whether this module runs from the checkout's cli/ or from an installed package's dist/cli/.
 */
export const SVCKIT_ROOT = packageRoot();

/** True when svckit runs from a source checkout (TypeScript sources present), not from a built package. */
export const SVCKIT_FROM_SOURCE = existsSync(join(SVCKIT_ROOT, 'runtime', 'index.ts'));

/** `--dir`, resolved against the directory the command runs in (which it is by default). */
export function projectDir(dir: string | boolean | undefined, cwd: string): string {
  return resolve(cwd, typeof dir === 'string' ? dir : '.');
}

export function specFile(dir: string): string {
  return join(dir, SPEC_FILE);
}

/**
 * Node flags that let a child process run the project's TypeScript: tsx's loader (resolved from svckit, so
 * the project needs no tsx of its own) and, in a svckit source checkout, the condition that maps `svckit`
 * imports to those sources.
 */
export function typescriptNodeFlags(): string[] {
  const require = createRequire(join(SVCKIT_ROOT, 'package.json'));
  const loader = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist', 'loader.mjs')).href;
  return [...(SVCKIT_FROM_SOURCE ? ['--conditions=svckit-source'] : []), '--import', loader];
}
