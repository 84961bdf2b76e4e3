// The environment each command gives the process it runs. An explicit setting from the user always wins,
// except NODE_ENV under `svc test`, which is always `test`.
//
// SVC_PGLITE_DIR replaces the directory of a `pglite:<dir>` stores.database (`memory`: in memory), and leaves a
// postgres:// or memory database alone. An embedded PGlite directory has one owner at a time (STORE_LOCKED),
// so commands that may run beside `svc dev` or `npm start` get a directory of their own.
import { join } from 'node:path';

export const PGLITE_DIR_ENV = 'SVC_PGLITE_DIR';

type Env = NodeJS.ProcessEnv;

/** A variable counts as set when it is not empty, as `${VAR:-default}` reads it. */
function isSet(env: Env, name: string): boolean {
  return env[name] !== undefined && env[name] !== '';
}

/** svc test: NODE_ENV=test (always), and fresh data in memory for every run unless SVC_PGLITE_DIR is set. */
export function testEnv(env: Env): Env {
  return {
    ...env,
    NODE_ENV: 'test',
    [PGLITE_DIR_ENV]: isSet(env, PGLITE_DIR_ENV) ? env[PGLITE_DIR_ENV] : 'memory',
  };
}

/** svc dev: NODE_ENV=development unless NODE_ENV is set (`NODE_ENV=production svc dev` tries production). */
export function devEnv(env: Env): Env {
  return { ...env, NODE_ENV: isSet(env, 'NODE_ENV') ? env.NODE_ENV : 'development' };
}

/**
 * svc mcp: an embedded database of its own, `<project>/.svc/mcp-data`, unless SVC_PGLITE_DIR is set, so an
 * agent's tool server never finds .svc/data locked by a running `svc dev` or `npm start`.
 */
export function mcpEnv(env: Env, projectDir: string): Env {
  const dir = isSet(env, PGLITE_DIR_ENV) ? env[PGLITE_DIR_ENV] : join(projectDir, '.svc', 'mcp-data');
  return { ...env, [PGLITE_DIR_ENV]: dir };
}
