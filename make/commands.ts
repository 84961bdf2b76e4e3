// The `svc make:*` commands: parse the command line, decide every file and spec entry first, refuse the
// whole run on any conflict, then write, wire src/app.ts and run `svc build`. `generatorCommands(defaults)`
// answers them as a command table, for svc's own CLI or a team's.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseDocument, type Document } from 'yaml';
import {
  generate,
  generateResource,
  GENERATORS,
  type GeneratedFile,
  type GeneratorKind,
} from './generate.js';
import { names, type Names } from './names.js';
import { checkGeneratorDefaults, type GenerateOptions, type GeneratorDefaults } from './options.js';
import {
  ALREADY_REGISTERED,
  hasLoadedTsMorph,
  moduleWiring,
  planAppRegistration,
  type AppRegistration,
} from './register.js';
import { missingSiblings, missingSiblingsWarning, serviceSiblingsExist } from './siblings.js';
import { editSpec, isModuleOn, type SpecEntries } from './spec-edit.js';
import { routeEntries, schemaEntries } from './spec-entries.js';
import { MAKE_USAGE } from './usage.js';
import { applyWrites } from './apply.js';
import { withProjectLock } from './project-lock.js';
import { existingPaths, FileExistsError, prepareGenerated } from './write.js';
import { FormatPool } from '../generator/format-pool.js';
import { TS_PARSER } from '../generator/format.js';
import type { SpecIR } from '../shared/ir.js';
import { MIGRATION_FILE } from '../shared/migration-file.js';
import { DEFAULT_TENANT_HEADER } from '../shared/module-defaults.js';
import { SPEC_FILE } from '../shared/spec-file.js';

/** Where a command writes and reads: structurally the CLI's own io. */
export interface MakeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
}

export type MakeCommand = (args: string[], io: MakeIo) => Promise<number>;

/** What one `svc make:*` command does: a single part, or the whole resource. */
export type MakeTarget = GeneratorKind | 'resource';

/** The commands that add entries to the spec, and so build. */
const SPEC_TARGETS: ReadonlySet<MakeTarget> = new Set(['resource', 'schema', 'routes']);

type Flags = NonNullable<ParseArgsConfig['options']>;
const bool = { type: 'boolean' } as const;

/** The flags each command accepts besides --dir, --force and --help; any other is refused. */
const FLAGS: Record<MakeTarget, Flags> = {
  resource: { prisma: bool, register: bool, public: bool, auth: bool, tenant: bool, 'soft-delete': bool },
  schema: {},
  repository: { prisma: bool, tenant: bool, 'soft-delete': bool },
  service: { crud: bool, tenant: bool },
  plugin: { prisma: bool, crud: bool },
  routes: { public: bool, auth: bool, tenant: bool },
  test: { public: bool, auth: bool, tenant: bool },
};

/** The make commands, with project defaults (`prisma`, `prismaClient`) the flags override either way. */
export function generatorCommands(defaults: GeneratorDefaults = {}): Record<string, MakeCommand> {
  const checked = checkGeneratorDefaults(defaults, 'generatorCommands()');
  const targets: MakeTarget[] = ['resource', ...GENERATORS];
  return Object.fromEntries(
    targets.map((target) => [
      `make:${target}`,
      (args: string[], io: MakeIo) => runMake(target, args, io, checked),
    ]),
  );
}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

function parse(target: MakeTarget, args: string[]): Parsed | string {
  try {
    return parseArgs({
      args,
      options: { dir: { type: 'string' }, force: bool, help: { ...bool, short: 'h' }, ...FLAGS[target] },
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function runMake(
  target: MakeTarget,
  args: string[],
  io: MakeIo,
  defaults: GeneratorDefaults,
): Promise<number> {
  const command = `make:${target}`;
  const usage = MAKE_USAGE[command]!;
  const parsed = parse(target, args);
  if (typeof parsed === 'string') {
    io.stderr.write(`svc ${command}: ${parsed}\n\n${usage}\n`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write(
      `svc ${command}: ${positionals.length === 0 ? 'missing <Name>' : `one <Name> only (got ${positionals.length})`}.\n\n${usage}\n`,
    );
    return 1;
  }
  try {
    return await make(target, positionals[0]!, values, io, defaults);
  } catch (error) {
    io.stderr.write(`svc ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** A flag given either way, else undefined. */
const flag = (values: Parsed['values'], name: string): boolean | undefined =>
  typeof values[name] === 'boolean' ? (values[name] as boolean) : undefined;

/** The header the spec's tenancy module reads the tenant from (a `${VAR}` or none: the default). */
function tenantHeaderOf(document: Document.Parsed): string {
  const header: unknown = document.getIn(['modules', 'tenancy', 'header']);
  return typeof header === 'string' && /^[A-Za-z0-9-]+$/.test(header) ? header : DEFAULT_TENANT_HEADER;
}

/** The number of a migration already written for this resource (rewritten with --force), else the next free one. */
async function migrationNumberFor(baseDir: string, n: Names): Promise<number> {
  const dir = join(baseDir, 'migrations');
  const entries = existsSync(dir) ? await readdir(dir) : [];
  let highest = 0;
  for (const entry of entries) {
    const match = MIGRATION_FILE.exec(entry);
    if (!match) continue;
    const number = Number(match[1]);
    if (match[2] === n.pluralKebab) return number;
    highest = Math.max(highest, number);
  }
  return highest + 1;
}

async function make(
  target: MakeTarget,
  name: string,
  values: Parsed['values'],
  io: MakeIo,
  defaults: GeneratorDefaults,
): Promise<number> {
  const n = names(name);
  const baseDir = resolve(io.cwd, typeof values.dir === 'string' ? values.dir : '.');
  const specPath = join(baseDir, SPEC_FILE);
  if (!existsSync(specPath)) {
    throw new Error(
      `${SPEC_FILE} not found in ${baseDir}: run it in an svc project (svc init <dir> makes one).`,
    );
  }
  // The commands that add spec entries end with a build: its format worker starts now, so that prettier and
  // openapi-typescript load on another core while this one edits, checks and writes.
  const pool = SPEC_TARGETS.has(target) ? new FormatPool(TS_PARSER, true, { openApiTypes: true }) : undefined;
  try {
    return await withProjectLock(baseDir, () =>
      scaffold(target, name, values, io, defaults, { n, baseDir, specPath, pool }),
    );
  } finally {
    await pool?.close();
  }
}

async function scaffold(
  target: MakeTarget,
  name: string,
  values: Parsed['values'],
  io: MakeIo,
  defaults: GeneratorDefaults,
  where: { n: Names; baseDir: string; specPath: string; pool: FormatPool | undefined },
): Promise<number> {
  const { n, baseDir, specPath, pool } = where;
  // Wiring src/app.ts loads the TypeScript compiler (ts-morph): the build's worker does it, on the other
  // core, while this thread edits and checks the spec. Nothing is written before it answers.
  const register = target === 'resource' && values.register !== false;
  const plannedInWorker = register && pool ? planInWorker(pool, name, baseDir) : undefined;
  const specText = await readFile(specPath, 'utf8');
  // Parsed once: the module switches, the schemas routes need and the edit all read it.
  const document = parseDocument(specText);
  const force = values.force === true;

  // --public is --no-auth; the two spellings must not disagree.
  const auth = flag(values, 'auth');
  if (values.public === true && auth === true) throw new Error('--public and --auth contradict each other.');
  const signedIn = values.public === true ? false : (auth ?? true);
  // A tenant's rows are its signed-in members': public routes are not tenant-scoped unless asked, and
  // asking for both is refused rather than writing routes nobody could use.
  const tenant = flag(values, 'tenant');
  if (!signedIn && tenant === true) {
    throw new Error(
      "--tenant needs signed-in callers (a tenant's rows are its members'), so it cannot go with --public.",
    );
  }
  const options: GenerateOptions = {
    prisma: flag(values, 'prisma') ?? defaults.prisma ?? false,
    auth: signedIn,
    tenant: tenant ?? (signedIn && isModuleOn(document.get('modules', true), 'tenancy')),
    softDelete: values['soft-delete'] === true,
    tenantHeader: tenantHeaderOf(document),
    ...(defaults.prismaClient ? { prismaClient: defaults.prismaClient } : {}),
  };
  if (target === 'service' || target === 'plugin')
    options.crud = flag(values, 'crud') ?? serviceSiblingsExist(name, { baseDir });

  const writesStorage = (target === 'resource' || target === 'repository') && !options.prisma;
  if (writesStorage) options.migrationNumber = await migrationNumberFor(baseDir, n);

  const files: GeneratedFile[] =
    target === 'resource' ? await generateResource(name, options) : await generate(target, name, options);

  const entries = specEntriesFor(target, n, options, document);
  const writesRoutes = entries.routes !== undefined;
  const enableModules: ('auth' | 'tenancy')[] = [];
  if (writesRoutes && (options.auth || options.tenant)) enableModules.push('auth');
  if (writesRoutes && options.tenant) enableModules.push('tenancy');
  const edit = editSpec(specText, entries, { force, enableModules, document });

  // Every conflict, files and spec entries alike, before anything is written.
  const conflicts = force ? [] : [...existingPaths(files, baseDir), ...edit.conflicts];
  if (conflicts.length > 0) throw new FileExistsError(conflicts);

  const ir = edit.text !== specText ? await checkSpec(specPath, specText, edit.text, io) : undefined;

  // The worker's plan, else one made here (no worker, or it failed: here the failure is raised as it is).
  const registration = register
    ? ((await plannedInWorker?.catch(() => undefined)) ?? (await planAppRegistration(name, { baseDir })))
    : undefined;

  // Decided, checked and formatted: now write, the module's files first, then the spec, then the app. A
  // write that fails puts back every earlier one.
  const writes = await prepareGenerated(files, baseDir);
  if (edit.text !== specText) writes.push({ target: specPath, content: edit.text });
  if (registration?.registered && registration.text !== undefined) {
    writes.push({ target: registration.appPath, content: registration.text });
  }
  await applyWrites(writes);
  const written = files.map((file) => file.path).sort();

  report(target, n, { io, written, edit, entries, registration, register, options, baseDir });
  if (ir) await buildSpec(specPath, ir, pool, io);
  return 0;
}

/** What planAppRegistration answers in the format worker, or undefined when this thread plans better itself. */
function planInWorker(
  pool: FormatPool,
  name: string,
  baseDir: string,
): Promise<AppRegistration & { text?: string }> | undefined {
  // A thread that has loaded ts-morph already (a watcher, a test run) plans in a moment.
  if (hasLoadedTsMorph()) return undefined;
  const here = import.meta.url;
  const inTypeScript = here.endsWith('.ts');
  let loader: string | undefined;
  try {
    // Run from its TypeScript source (a checkout), the worker needs the loader this thread runs under.
    if (inTypeScript) loader = import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  const plan = pool.runTask<AppRegistration & { text?: string }>({
    module: new URL(inTypeScript ? './register.ts' : './register.js', here).href,
    name: 'planAppRegistration',
    args: [name, { baseDir }],
    ...(loader ? { loader } : {}),
  });
  // Awaited once the spec is checked; a run refused before that leaves it unread.
  plan.catch(() => undefined);
  return plan;
}

/** The spec entries a command adds: schemas for schema, routes (and schemas the spec lacks) for routes. */
function specEntriesFor(
  target: MakeTarget,
  n: Names,
  options: GenerateOptions,
  document: Document.Parsed,
): SpecEntries {
  const routeOptions = { auth: options.auth ?? true, tenant: options.tenant ?? false };
  if (target === 'resource') return { ...schemaEntries(n), ...routeEntries(n, routeOptions) };
  if (target === 'schema') return schemaEntries(n);
  if (target !== 'routes') return {};
  // Routes need their schemas: the ones the spec lacks come along.
  const missing = Object.entries(schemaEntries(n).resources ?? {}).filter(
    ([key]) => !document.hasIn(['resources', key]),
  );
  return {
    ...(missing.length > 0 ? { resources: Object.fromEntries(missing) } : {}),
    ...routeEntries(n, routeOptions),
  };
}

/**
 * Loads the edited spec as the spec file's text before it is written, so a spec the loader refuses is never
 * saved; answers the IR, which the build then uses instead of loading the spec again. A spec that did not
 * load before the edit either is reported as such.
 */
async function checkSpec(specPath: string, before: string, after: string, io: MakeIo): Promise<SpecIR> {
  const { loadSpec } = await import('../spec/index.js');
  try {
    return await loadSpec(specPath, { env: io.env, text: after });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const loadedBefore = await loadSpec(specPath, { env: io.env, text: before }).then(
      () => true,
      () => false,
    );
    throw new Error(
      loadedBefore
        ? `the spec with these entries does not load, so nothing was written:\n${detail}`
        : `${SPEC_FILE} does not load as it is; fix it, then run again (nothing was written):\n${detail}`,
    );
  }
}

async function buildSpec(
  specPath: string,
  ir: SpecIR,
  pool: FormatPool | undefined,
  io: MakeIo,
): Promise<void> {
  const { build } = await import('../generator/index.js');
  const result = await build({ specFile: specPath, env: io.env, ir, ...(pool ? { pool } : {}) });
  const written = result.files.filter((file) => file.status === 'written').length;
  io.stdout.write(
    `svc build: ${result.files.length} files, ${written} written in ${Math.round(result.ms)} ms\n`,
  );
}

interface ReportInput {
  io: MakeIo;
  written: string[];
  edit: ReturnType<typeof editSpec>;
  entries: SpecEntries;
  registration: Awaited<ReturnType<typeof planAppRegistration>> | undefined;
  register: boolean;
  options: GenerateOptions;
  baseDir: string;
}

function report(target: MakeTarget, n: Names, input: ReportInput): void {
  const { io, written, edit, entries } = input;
  for (const path of written) io.stdout.write(`  wrote ${path}\n`);
  const added = (['resources', 'routes', 'errors'] as const)
    .map((section) => [section, Object.keys(entries[section] ?? {})] as const)
    .filter(([, keys]) => keys.length > 0)
    .map(([section, keys]) => `${section} ${keys.join(', ')}`);
  if (added.length > 0) io.stdout.write(`  ${SPEC_FILE}: ${added.join('; ')}\n`);
  for (const module of edit.enabled) {
    io.stdout.write(
      module === 'auth'
        ? `  ${SPEC_FILE}: switched modules.auth on (accounts and sign-in under /auth; SVC_SECRET in production), since the routes need a signed-in user\n`
        : `  ${SPEC_FILE}: switched modules.tenancy on (teams under /tenants; requests name theirs with ${input.options.tenantHeader ?? DEFAULT_TENANT_HEADER}), since the rows belong to a tenant\n`,
    );
  }
  if (target === 'resource') {
    const { registration } = input;
    if (!input.register) {
      io.stdout.write(`  src/app.ts left alone (--no-register); to serve the routes, add:\n${wiringHint(n)}`);
    } else if (registration?.registered) {
      const wiring = moduleWiring(n);
      io.stdout.write(`  src/app.ts: registered ${wiring.handlersFunction} and ${wiring.pluginFunction}\n`);
    } else if (registration?.reason === ALREADY_REGISTERED) {
      io.stdout.write(`  src/app.ts not changed (${registration.reason})\n`);
    } else if (registration) {
      io.stdout.write(
        `  src/app.ts not changed (${registration.reason}); to serve the routes, add:\n${wiringHint(n)}`,
      );
    }
    if (input.options.prisma) {
      io.stdout.write(
        `  Prisma: include src/modules/${n.kebab}/${n.kebab}.prisma in your Prisma schema, run prisma generate and provide the client on the app's container under PRISMA_CLIENT.\n`,
      );
    }
  } else {
    // The handlers of routes made alone are served once src/app.ts registers them.
    if (target === 'routes')
      io.stdout.write(`  to serve the routes, register the module in src/app.ts:\n${wiringHint(n)}`);
    const warning = missingSiblingsWarning(
      target,
      n.raw,
      missingSiblings(target, n.raw, { baseDir: input.baseDir, crud: input.options.crud ?? true }),
    );
    if (warning) io.stderr.write(`${warning}\n`);
  }
}

function wiringHint(n: Names): string {
  const wiring = moduleWiring(n);
  return [
    `    import { ${wiring.handlersFunction} } from '${wiring.routesSpecifier}';`,
    `    import { ${wiring.pluginFunction} } from '${wiring.pluginSpecifier}';`,
    `    handlers: (service) => ({ ...${wiring.handlersFunction}(service), … })`,
    `    plugins: (service) => [${wiring.pluginFunction}(service), …]`,
    '',
  ].join('\n');
}
