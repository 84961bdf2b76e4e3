// Shared by the format-cache suites: throwaway projects, and one file formatted through a project's cache as
// a build formats it, noting what prettier itself was asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { Options } from 'prettier';
import { FormatCache } from '../../generator/format-cache.js';

/** svckit's generated-code style. */
export const OPTIONS: Options = {
  parser: 'babel-ts',
  singleQuote: true,
  printWidth: 110,
  trailingComma: 'all',
};

const dirs: string[] = [];

/** Removes the projects made so far: each suite calls it after each test (a helper's own hook would run for
 * the first suite only, as modules are shared between the files of a worker). */
export function removeProjects(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A project folder removed after the test, and the path of `generated/<file>` in it. */
export function project(file: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-format-cache-'));
  dirs.push(dir);
  return { dir, file: join(dir, 'generated', file) };
}

/** A build's formatting of one file through the cache; `asked` lists what prettier itself was given. */
export async function formatThroughCache(dir: string, file: string, source: string, options = OPTIONS) {
  const cache = await FormatCache.open(dir);
  await cache.read([file]);
  const asked: string[] = [];
  const formatted = await cache.format(file, source, { ...options, filepath: file }, (text) => {
    asked.push(text);
    return prettier.format(text, { ...options, filepath: file });
  });
  await cache.save();
  return { formatted, asked };
}
