// The signing secret of a development machine: created once under `.svc/` and reused, so restarts and several
// local processes accept each other's tokens. Never used in production, where a missing or short secret
// refuses to start (AUTH_WEAK_SECRET).
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProductionEnv } from '../config/node-env.js';

const DEV_SECRET_FILE = 'secret';

/** The secret kept in `<dir>/secret`, created (mode 0600) when absent. Safe when several processes race. */
export function developmentSecret(dir: string): string {
  const file = join(dir, DEV_SECRET_FILE);
  const existing = readSecret(file);
  if (existing !== undefined) return existing;
  mkdirSync(dir, { recursive: true });
  // Written whole to a private temp file, then linked into place: link() fails when another process won
  // the race, and then its secret is the one everybody reads. A reader never sees a half-written file.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  const secret = readSecret(file);
  if (secret === undefined) throw new Error(`${file} holds no secret; delete it to have a new one made.`);
  return secret;
}

function readSecret(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text === '' ? undefined : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The service secret, by one rule for every module that keys anything with it (auth, MCP): the given one,
 * else SVC_SECRET, else in development the one kept under `<projectDir>/.svc/`; undefined in production without
 * one (each module decides whether it can run without).
 */
export function serviceSecret(
  given: string | undefined,
  env: Record<string, string | undefined>,
  projectDir: string,
): string | undefined {
  if (given !== undefined && given !== '') return given;
  const fromEnv = env.SVC_SECRET;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (isProductionEnv(env.NODE_ENV)) return undefined;
  return developmentSecret(join(projectDir, '.svc'));
}
