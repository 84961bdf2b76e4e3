// The module `svc start` and `svc dev` run: `server.entry` of the spec (default src/server.ts).
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { resolveSvcConfig } from '../runtime/config/index.js';
import { loadSpec } from '../spec/index.js';
import { SPEC_FILE, specFile } from './project.js';

/** `env`: values for the spec's `${VAR}` references. */
export async function resolveEntry(
  dir: string,
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  let entry = explicit;
  if (entry === undefined) {
    const spec = await loadSpec(specFile(dir), { env });
    entry = resolveSvcConfig({ ...spec, source: SPEC_FILE }, env).server.entry;
  }
  const path = resolve(dir, entry);
  if (!existsSync(path)) {
    throw new Error(
      `entry module ${relative(dir, path) || path} does not exist (set server.entry in ${SPEC_FILE}).`,
    );
  }
  return path;
}
