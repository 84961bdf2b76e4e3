// config.ts and runtime/config: `${VAR}` references resolved at start, validated, CONFIG_INVALID named.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BootError } from 'svckit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSvcConfig, type ConfigSpec, type SvcConfig } from '../../runtime/config/index.js';
import type { ConfigValue } from '../../shared/ir.js';
import { notesSpec } from './fixtures.js';
import { createProject, generateInto, type TestProject } from './project.js';

const ref = (env: string, fallback?: string): ConfigValue => ({
  $template: [fallback === undefined ? { env } : { env, default: fallback }],
  reread: true,
});

function configSpec(config: ConfigSpec['config']): ConfigSpec {
  return { name: 'notes-api', version: '1.2.3', source: 'svc.config.yaml', config };
}

const REFERENCE = configSpec({
  server: {
    adapter: ref('SVC_ADAPTER', 'fastify'),
    port: ref('PORT', '3000'),
    host: ref('HOST', '127.0.0.1'),
  },
  stores: {
    database: { $template: [{ env: 'DATABASE_URL', default: 'pglite:.svc/data' }] },
    redis: { $template: [{ env: 'REDIS_URL', default: '' }] },
  },
});

function configError(spec: ConfigSpec, env: Record<string, string | undefined>): BootError {
  try {
    resolveSvcConfig(spec, env);
  } catch (error) {
    if (error instanceof BootError) return error;
    throw error;
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('resolveSvcConfig', () => {
  it('applies the defaults written in the spec, and svc defaults for what the spec leaves out', () => {
    expect(resolveSvcConfig(REFERENCE, {})).toEqual<SvcConfig>({
      name: 'notes-api',
      version: '1.2.3',
      server: { adapter: 'fastify', port: 3000, host: '127.0.0.1', entry: 'src/server.ts' },
      stores: { database: 'pglite:.svc/data' },
      modules: {},
    });
    expect(resolveSvcConfig(configSpec({}), {}).server).toEqual({
      adapter: 'fastify',
      port: 3000,
      host: '127.0.0.1',
      entry: 'src/server.ts',
    });
  });

  it('reads the environment at start: a whole-value reference becomes a number or boolean', () => {
    const config = resolveSvcConfig(REFERENCE, {
      PORT: '8080',
      SVC_ADAPTER: 'hono',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(config.server.port).toBe(8080);
    expect(config.server.adapter).toBe('hono');
    expect(config.stores.redis).toBe('redis://127.0.0.1:6379');
    // `:-` applies to an empty variable too (shell semantics).
    expect(resolveSvcConfig(REFERENCE, { PORT: '' }).server.port).toBe(3000);
  });

  it('refuses a bad port naming the option and the variable it came from', () => {
    const error = configError(REFERENCE, { PORT: 'abc' });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('server.port: expected an integer 0-65535, got "abc" (from ${PORT})');
    for (const port of ['65536', '-1', '3000.5', 'true', ' 80']) {
      const message = configError(REFERENCE, { PORT: port }).message;
      expect(message, port).toMatch(/^server\.port: expected an integer 0-65535, got /);
    }
    expect(resolveSvcConfig(REFERENCE, { PORT: '0' }).server.port).toBe(0);
  });

  it('names a default as the origin when the default itself is bad', () => {
    const spec = configSpec({ server: { port: ref('PORT', 'eighty') } });
    expect(configError(spec, {}).message).toBe(
      'server.port: expected an integer 0-65535, got "eighty" (from the default in ${PORT:-eighty})',
    );
  });

  it('names the spec file for a bad literal value, and refuses an unknown adapter', () => {
    expect(configError(configSpec({ server: { adapter: 'koa' } }), {}).message).toBe(
      'server.adapter: expected one of fastify, express, hono, got "koa" (from svc.config.yaml)',
    );
    expect(configError(configSpec({ server: { host: '' } }), {}).message).toMatch(
      /^server\.host: expected a non-empty string/,
    );
  });

  it('refuses a variable without default that is not set', () => {
    const spec = configSpec({ stores: { database: { $template: [{ env: 'DATABASE_URL' }] } } });
    expect(configError(spec, {}).message).toBe(
      'stores.database: environment variable DATABASE_URL is not set (from ${DATABASE_URL})',
    );
  });

  it('lists every bad option at once, with details for tools', () => {
    const error = configError(REFERENCE, { PORT: 'x', SVC_ADAPTER: 'koa' });
    expect(error.message).toBe(
      'Invalid configuration:\n' +
        '  server.adapter: expected one of fastify, express, hono, got "koa" (from ${SVC_ADAPTER})\n' +
        '  server.port: expected an integer 0-65535, got "x" (from ${PORT})',
    );
    expect(error.details).toMatchObject({
      problems: [{ option: 'server.adapter' }, { option: 'server.port' }],
    });
  });

  it('keeps text around references as text, and a literal ${ written $${ as text', () => {
    const spec = configSpec({
      stores: {
        database: { $template: ['postgres://', { env: 'DB_HOST', default: 'localhost' }, ':5432/app'] },
      },
      modules: { note: { $template: ['$', '{NOT_A_REF}'] } },
    });
    const config = resolveSvcConfig(spec, { DB_HOST: 'db' });
    expect(config.stores.database).toBe('postgres://db:5432/app');
    expect(config.modules).toEqual({ note: '${NOT_A_REF}' });
  });

  it('keeps a `__proto__` key of module settings as a plain property', () => {
    const modules = JSON.parse('{"files": {"__proto__": {"polluted": true}}}') as ConfigSpec['config'];
    const config = resolveSvcConfig(configSpec({ modules }), {});
    const files = config.modules.files as object;
    expect(Object.getPrototypeOf(files)).toBe(Object.prototype);
    expect(Object.keys(files)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('generated config.ts', () => {
  let app: TestProject;
  let generated: {
    loadConfig(env?: Record<string, string | undefined>): SvcConfig;
    name: string;
    version: string;
  };

  beforeAll(async () => {
    app = createProject('# files are generated from IR\n');
    await generateInto(app, notesSpec(), 'source');
    generated = (await import(pathToFileURL(join(app.outDir, 'config.ts')).href)) as typeof generated;
  });
  afterAll(() => app.remove());

  it('exports name, version and loadConfig resolving the spec settings against an environment', () => {
    expect(generated.name).toBe('notes-api');
    expect(generated.version).toBe('0.1.0');
    expect(generated.loadConfig({ PORT: '4000' }).server).toEqual({
      adapter: 'fastify',
      port: 4000,
      host: '127.0.0.1',
      entry: 'src/server.ts',
    });
    expect(() => generated.loadConfig({ PORT: 'abc' })).toThrow(
      'server.port: expected an integer 0-65535, got "abc" (from ${PORT})',
    );
  });

  it('keeps references unresolved in the file, so one build serves every environment', () => {
    const source = app.read('config.ts');
    expect(source).toContain("port: { $template: [{ env: 'PORT', default: '3000' }], reread: true }");
    expect(source).toContain(
      'export function loadConfig(env: Record<string, string | undefined> = process.env): SvcConfig {',
    );
  });
});
