// The module `svc start` and `svc dev` run: `server.entry` of the spec (default src/server.ts).
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { resolveSvcConfig } from '../runtime/config/index.js';
import { loadSpec } from '../spec/index.js';
import { SPEC_FILE, specFile } from './project.js';

export async function resolveEntry(dir: string, explicit: string | undefined): Promise<string> {
  let entry = explicit;
  if (entry === undefined) {
    const spec = await loadSpec(specFile(dir));
    entry = resolveSvcConfig({ ...spec, source: SPEC_FILE }).server.entry;
  }
  const path = resolve(dir, entry);
  if (!existsSync(path)) {
    throw new Error(
      `entry module ${relative(dir, path) || path} does not exist (set server.entry in ${SPEC_FILE}).`,
    );
  }
  return path;
}
