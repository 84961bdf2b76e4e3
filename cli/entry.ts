// The module `svc start` and `svc dev` run: `server.entry` of the spec (default src/server.ts).
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { SpecIR } from '../shared/ir.js';
import { resolveSvcConfig } from '../runtime/config/index.js';
import { loadSpec } from '../spec/index.js';
import { SPEC_FILE, specFile } from './project.js';

/** `env`: values for the spec's `${VAR}` references. */
export async function resolveEntry(
  dir: string,
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (explicit !== undefined) return existingEntry(dir, explicit);
  return (await resolveSpecEntry(dir, env)).entry;
}

/** The entry `server.entry` names, and the spec it was read from (svc dev watches the files it came from). */
export async function resolveSpecEntry(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ entry: string; spec: SpecIR }> {
  const spec = await loadSpec(specFile(dir), { env });
  const entry = resolveSvcConfig({ ...spec, source: SPEC_FILE }, env).server.entry;
  return { entry: existingEntry(dir, entry), spec };
}

function existingEntry(dir: string, entry: string): string {
  const path = resolve(dir, entry);
  if (!existsSync(path)) {
    throw new Error(
      `entry module ${relative(dir, path) || path} does not exist (set server.entry in ${SPEC_FILE}).`,
    );
  }
  return path;
}
