// The settings an application starts with (svc.config.yaml `server`, `stores`, `modules`), resolved
// against the environment and validated once at start. A bad value refuses to boot with CONFIG_INVALID,
// naming the option and where its value came from.
import { errors } from '../../generated/modules/errors.js';
import { resolveConfigWithOrigins, type ConfigProblem, type ConfigValue, type Env } from './resolve.js';

export const SERVER_ADAPTERS = ['fastify', 'express', 'hono'] as const;
export type ServerAdapter = (typeof SERVER_ADAPTERS)[number];

export interface ServerConfig {
  /** Default 'fastify'. */
  adapter: ServerAdapter;
  /** Default 3000; 0 picks a free port. */
  port: number;
  /** Default '127.0.0.1'. */
  host: string;
  /** The module `svc start` runs; default 'src/server.ts'. */
  entry: string;
}

export interface StoresConfig {
  /** `postgres://…`, `pglite:<dir>` or `memory`; undefined when not set (the stores choose their default). */
  database?: string;
  /** `redis://…`; undefined when not set or empty (`${REDIS_URL:-}`). */
  redis?: string;
}

export interface SvcConfig {
  name: string;
  version: string;
  server: ServerConfig;
  stores: StoresConfig;
  /** Module settings as written, references resolved; each module validates its own. */
  modules: Record<string, unknown>;
}

export const SERVER_DEFAULTS: Readonly<ServerConfig> = {
  adapter: 'fastify',
  port: 3000,
  host: '127.0.0.1',
  entry: 'src/server.ts',
};

export interface ConfigSpec {
  name: string;
  version: string;
  /** The spec file the settings come from, named in error messages ('svc.config.yaml'). */
  source: string;
  /** IR `config`: settings with `{ $template }` references unresolved. */
  config: { readonly [key: string]: ConfigValue };
}

/** Resolves and validates the settings; throws BootError CONFIG_INVALID listing every bad option. */
export function resolveSvcConfig(spec: ConfigSpec, env: Env = process.env): SvcConfig {
  const resolved = resolveConfigWithOrigins(spec.config, env);
  const problems: ConfigProblem[] = [...resolved.problems];
  const from = (option: string) => resolved.origins.get(option) ?? spec.source;
  const check = <T>(option: string, value: unknown, fallback: T, read: Reader<T>): T => {
    // Unset, or a reference that could not be resolved (already reported): the default applies.
    if (value === undefined) return fallback;
    const result = read(value);
    if (result.ok) return result.value;
    problems.push({ option, message: `${result.expected}, got ${shown(value)}`, from: from(option) });
    return fallback;
  };

  const server = section(resolved.value.server);
  const stores = section(resolved.value.stores);
  const config: SvcConfig = {
    name: spec.name,
    version: spec.version,
    server: {
      adapter: check('server.adapter', server.adapter, SERVER_DEFAULTS.adapter, readAdapter),
      port: check('server.port', server.port, SERVER_DEFAULTS.port, readPort),
      host: check('server.host', server.host, SERVER_DEFAULTS.host, readNonEmptyString),
      entry: check('server.entry', server.entry, SERVER_DEFAULTS.entry, readNonEmptyString),
    },
    stores: {},
    modules: section(resolved.value.modules),
  };
  const database = check('stores.database', stores.database, undefined, readOptionalString);
  const redis = check('stores.redis', stores.redis, undefined, readOptionalString);
  if (database !== undefined) config.stores.database = database;
  if (redis !== undefined) config.stores.redis = redis;

  if (problems.length > 0) {
    const lines = problems.map((problem) => `${problem.option}: ${problem.message} (from ${problem.from})`);
    throw errors.CONFIG_INVALID({
      message: lines.length === 1 ? (lines[0] ?? '') : `Invalid configuration:\n  ${lines.join('\n  ')}`,
      details: { problems },
    });
  }
  return config;
}

function section(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

type Reader<T> = (value: unknown) => { ok: true; value: T } | { ok: false; expected: string };

const readAdapter: Reader<ServerAdapter> = (value) =>
  typeof value === 'string' && (SERVER_ADAPTERS as readonly string[]).includes(value)
    ? { ok: true, value: value as ServerAdapter }
    : { ok: false, expected: `expected one of ${SERVER_ADAPTERS.join(', ')}` };

const readPort: Reader<number> = (value) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535
    ? { ok: true, value }
    : { ok: false, expected: 'expected an integer 0-65535' };

const readNonEmptyString: Reader<string> = (value) =>
  typeof value === 'string' && value !== ''
    ? { ok: true, value }
    : { ok: false, expected: 'expected a non-empty string' };

/** '' and null count as not set, so `redis: ${REDIS_URL:-}` means "no Redis". */
const readOptionalString: Reader<string | undefined> = (value) => {
  if (value === '' || value === null) return { ok: true, value: undefined };
  return typeof value === 'string' ? { ok: true, value } : { ok: false, expected: 'expected a string' };
};

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'a list' : 'a mapping';
}
