// `node --import tsx bench/build.ts [routes]`: how long `svc build` takes on a large spec (default 200 routes,
// target: < 5 s cold, < 1 s for a no-op rebuild). Writes the spec into a temp dir, then runs each build in a
// fresh process, as a user's `svc build` would: cold (no cache), no-op (cache hit), and --check.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  // One build in this process; prints what the parent reports.
  const started = performance.now();
  const { build } = await import('../generator/index.js');
  const result = await build({
    specFile: process.argv[3] ?? '',
    check: process.argv[4] === 'check',
    env: {},
  });
  const stale = result.files.filter((file) => file.status === 'stale').length;
  process.stdout.write(
    JSON.stringify({
      buildMs: result.ms,
      inProcessMs: performance.now() - started,
      cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      cached: result.cached,
      stale,
    }),
  );
  process.exit(0);
}

/** A CRUD API: `routes / 5` resources, each with list, create, get, update and delete. */
export function largeSpec(routeCount: number): object {
  const resources: Record<string, object> = {};
  const routes: Record<string, object> = {};
  for (let i = 0; i < Math.ceil(routeCount / 5); i++) {
    const name = `Thing${i}`;
    const fields = {
      name: { type: 'string', minLength: 1, maxLength: 100, description: `Name of thing ${i}.` },
      count: { type: 'integer', minimum: 0, default: 0 },
      kind: { enum: ['small', 'medium', 'large'] },
      tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 10 },
    };
    resources[name] = {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid', readOnly: true },
        ...fields,
        createdAt: { type: 'string', format: 'date-time', readOnly: true },
      },
      required: ['id', 'name', 'createdAt'],
      additionalProperties: false,
    };
    resources[`${name}Input`] = {
      type: 'object',
      properties: fields,
      required: ['name'],
      additionalProperties: false,
    };
    const base = `/things-${i}`;
    const id = { id: { type: 'string', format: 'uuid' } };
    const meta = (summary: string, mcp: boolean) => ({
      summary,
      tags: [`things-${i % 8}`],
      ...(mcp ? { mcp: true } : {}),
    });
    routes[`list${name}`] = {
      method: 'GET',
      path: base,
      query: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        cursor: { type: 'string', maxLength: 200 },
        kind: { type: 'array', items: { type: 'string', enum: ['small', 'medium', 'large'] } },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { $ref: `#/resources/${name}` } },
            nextCursor: { type: ['string', 'null'] },
          },
          required: ['items', 'nextCursor'],
        },
      },
      meta: meta(`List things ${i}`, true),
    };
    routes[`create${name}`] = {
      method: 'POST',
      path: base,
      body: `${name}Input`,
      response: { 201: name },
      meta: meta('Create', true),
    };
    routes[`get${name}`] = {
      method: 'GET',
      path: `${base}/:id`,
      params: id,
      response: { 200: name },
      errors: ['NOT_FOUND_THING'],
      meta: meta('Read', true),
    };
    routes[`update${name}`] = {
      method: 'PATCH',
      path: `${base}/:id`,
      params: id,
      body: `${name}Input`,
      response: { 200: name },
      errors: ['NOT_FOUND_THING'],
      meta: meta('Change', false),
    };
    routes[`delete${name}`] = {
      method: 'DELETE',
      path: `${base}/:id`,
      params: id,
      response: { 204: null },
      errors: ['NOT_FOUND_THING'],
      meta: meta('Delete', false),
    };
  }
  return {
    svc: 1,
    name: 'bench-build',
    version: '1.0.0',
    server: { port: '${PORT:-3000}' },
    // Routes marked `mcp: true` need the module that enforces them.
    modules: { mcp: true },
    resources,
    routes,
    errors: { NOT_FOUND_THING: { status: 404, message: 'Thing not found.' } },
  };
}

function runChild(specFile: string, mode: 'build' | 'check') {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--child', specFile, mode], {
    encoding: 'utf8',
  });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`build failed:\n${child.stderr.slice(0, 2000)}`);
  const report = JSON.parse(child.stdout) as {
    buildMs: number;
    inProcessMs: number;
    cpuMs: number;
    cached: boolean;
    stale: number;
  };
  return { wallMs, ...report };
}

if (process.argv[1] === SELF) {
  const routeCount = Number(process.argv[2] ?? 200);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-build-'));
  try {
    const specFile = join(dir, 'svc.config.yaml');
    // No anchors or aliases: a hand-written spec repeats itself instead.
    writeFileSync(specFile, stringify(largeSpec(routeCount), { aliasDuplicateObjects: false }));
    const rows = [
      ['cold build (no cache)', runChild(specFile, 'build')],
      ['no-op rebuild (cache hit)', runChild(specFile, 'build')],
      ['svc build --check', runChild(specFile, 'check')],
    ] as const;
    const ms = (value: number) => `${Math.round(value)} ms`;
    process.stdout.write(`svc build of a ${routeCount}-route spec (each run a fresh process)\n\n`);
    process.stdout.write('| run | wall (process) | build() | process CPU | cached | stale |\n');
    process.stdout.write('|---|---|---|---|---|---|\n');
    for (const [label, run] of rows) {
      const cells = [label, ms(run.wallMs), ms(run.buildMs), ms(run.cpuMs), run.cached, run.stale];
      process.stdout.write(`| ${cells.join(' | ')} |\n`);
    }
    const load = loadavg().map((value) => value.toFixed(2));
    process.stdout.write(`\nload average while measuring: ${load.join(' ')} (${cpus().length} cores)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
