// The files of a resource, rendered from templates/make/ (handlebars) and formatted. Pure: nothing is read
// from or written to the project here (writeGenerated writes; the command decides the migration number).
import { posix } from 'node:path';
import { renderTemplate } from '../generator/templates.js';
import { formatTypeScript } from './format.js';
import { capitalize, names, type Names } from './names.js';
import { resolveOptions, type GenerateOptions, type ResolvedOptions } from './options.js';
import { errorCodes, routeIds, wordsFor } from './spec-entries.js';

/** A file to write: a project-relative path with `/` and its content. */
export interface GeneratedFile {
  path: string;
  content: string;
}

/** What `generate()` writes, one kind per `svc make:<kind>` command but `resource`. */
export const GENERATORS = ['schema', 'repository', 'service', 'plugin', 'routes', 'test'] as const;
export type GeneratorKind = (typeof GENERATORS)[number];

export function isGeneratorKind(kind: string): kind is GeneratorKind {
  return (GENERATORS as readonly string[]).includes(kind);
}

/** Where a module's files live: src/modules/<kebab>/. */
export function moduleDir(n: Names): string {
  return `src/modules/${n.kebab}`;
}

/** The project-relative path of a kind's main file. */
export function pathOf(kind: GeneratorKind, n: Names): string {
  return kind === 'test' ? `test/${n.kebab}.test.ts` : `${moduleDir(n)}/${n.kebab}.${kind}.ts`;
}

/** The SQL migration of a SQL repository: migrations/NNNN-<plural>.sql. */
export function migrationPath(n: Names, number: number): string {
  return `migrations/${String(number).padStart(4, '0')}-${n.pluralKebab}.sql`;
}

/** The Prisma model block of a Prisma repository. */
export function prismaModelPath(n: Names): string {
  return `${moduleDir(n)}/${n.kebab}.prisma`;
}

/** The table of a resource: blog_posts. */
export function tableOf(n: Names): string {
  return n.pluralKebab.replaceAll('-', '_');
}

/**
 * A relative Prisma client import is given from the project root (`./src/db/client.js`); the generated file
 * sits in src/modules/<name>/, so it is rewritten to resolve from there. A package name stays as it is.
 */
export function prismaImportFor(n: Names, specifier: string): string {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return specifier;
  const relative = posix.relative(moduleDir(n), posix.normalize(specifier));
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** The list index of a resource's table: blog_posts_tenant_created. */
export function indexOf(n: Names, options: { tenant: boolean }): string {
  return `${tableOf(n)}_${options.tenant ? 'tenant_' : ''}created`;
}

/** The longest name PostgreSQL keeps whole (it cuts longer ones short without a word). */
const MAX_SQL_NAME = 63;

/**
 * Identifiers the generated files import or declare beside the resource's own: a resource named one of them
 * would shadow it (`Date`, `Token`) and the module would not compile.
 */
const TAKEN_NAMES = new Set([
  'Array',
  'Awaited',
  'Boolean',
  'Buffer',
  'Date',
  'Error',
  'Handlers',
  'JSON',
  'Map',
  'Number',
  'Object',
  'Partial',
  'Plugin',
  'Position',
  'Promise',
  'Record',
  'Repository',
  'ReturnType',
  'ScopedRepository',
  'ServiceContext',
  'Set',
  'SqlQueryable',
  'String',
  'Symbol',
  'Token',
]);

/** Refuses a name whose files would not compile or whose table PostgreSQL would refuse or cut short. */
export function checkGeneratable(n: Names, options: ResolvedOptions): void {
  const taken = [n.pascal, `${n.pascal}Row`].find(
    (name) => TAKEN_NAMES.has(name) || (options.prisma && name === options.prismaClient.type),
  );
  if (taken !== undefined) {
    throw new Error(
      `'${n.raw}' would name the type ${taken}, which the generated module already uses; choose another name (e.g. ${n.pascal}Item).`,
    );
  }
  const table = tableOf(n);
  if (table.startsWith('svc_')) {
    throw new Error(
      `'${n.raw}' would name the table ${table}: svc_ tables are svckit's own; choose another name.`,
    );
  }
  const index = indexOf(n, options);
  if (index.length > MAX_SQL_NAME) {
    throw new Error(
      `'${n.raw}' is too long for a table: its index ${index} has ${index.length} characters, PostgreSQL keeps ${MAX_SQL_NAME}.`,
    );
  }
}

function templateData(n: Names, options: ResolvedOptions) {
  const migrationFile = migrationPath(n, options.migrationNumber);
  const columns = ['id', ...(options.tenant ? ['tenantId'] : []), 'name', 'createdAt', 'updatedAt'];
  if (options.softDelete) columns.push('deletedAt');
  const words = wordsFor(n);
  return {
    n,
    words,
    Words: { one: capitalize(words.one), many: capitalize(words.many) },
    ids: routeIds(n),
    codes: errorCodes(n),
    table: tableOf(n),
    indexName: indexOf(n, options),
    migrationFile,
    columns,
    tenant: options.tenant,
    tenantHeader: options.tenantHeader,
    auth: options.auth,
    crud: options.crud,
    softDelete: options.softDelete,
    prisma: options.prisma,
    prismaImport: prismaImportFor(n, options.prismaClient.import),
    prismaType: options.prismaClient.type,
    scopeParam: options.tenant ? 'tenantId: string, ' : '',
    scopeArg: options.tenant ? 'tenantId, ' : '',
    handlerScope: options.tenant ? 'requireTenantId(context), ' : '',
  };
}

/** The template of each kind's main file. */
function templateOf(kind: GeneratorKind, options: ResolvedOptions): string {
  switch (kind) {
    case 'repository':
      return options.prisma ? 'make/repository.prisma.ts.hbs' : 'make/repository.sql.ts.hbs';
    case 'service':
      return options.crud ? 'make/service.crud.ts.hbs' : 'make/service.minimal.ts.hbs';
    default:
      return `make/${kind}.ts.hbs`;
  }
}

/**
 * The files of one kind for `name`: its TypeScript file, and for a repository its storage (the SQL
 * migration, or with `prisma` the model block). Throws when `name` holds no words.
 */
export async function generate(
  kind: GeneratorKind,
  name: string,
  options: GenerateOptions = {},
): Promise<GeneratedFile[]> {
  if (!isGeneratorKind(kind)) {
    throw new TypeError(`Unknown generator '${String(kind)}' (known: ${GENERATORS.join(', ')}).`);
  }
  const n = names(name);
  const resolved = resolveOptions(options);
  checkGeneratable(n, resolved);
  const data = templateData(n, resolved);
  const path = pathOf(kind, n);
  const files = [{ path, content: await formatTypeScript(renderTemplate(templateOf(kind, resolved), data)) }];
  if (kind === 'repository') {
    files.push(
      resolved.prisma
        ? { path: prismaModelPath(n), content: renderTemplate('make/model.prisma.hbs', data) }
        : {
            path: migrationPath(n, resolved.migrationNumber),
            content: renderTemplate('make/migration.sql.hbs', data),
          },
    );
  }
  return files;
}

/** Every file of a resource: schema, repository (and its storage), service, plugin, routes, test. CRUD always. */
export async function generateResource(
  name: string,
  options: GenerateOptions = {},
): Promise<GeneratedFile[]> {
  const crud = { ...options, crud: true };
  const parts = await Promise.all(GENERATORS.map((kind) => generate(kind, name, crud)));
  return parts.flat();
}
