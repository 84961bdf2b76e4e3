// The choices a generated resource is written with, their defaults, and the project defaults a team sets
// once (package.json "svc": { "make": { … } }) so every `svc make:*` follows them unless a flag says otherwise.

import { DEFAULT_TENANT_HEADER } from '../shared/module-defaults.js';

/** The Prisma client the generated repository uses: the module to import it from and the exported type. */
export interface PrismaClientImport {
  /** A package (`@prisma/client`) or a path relative to the project root (`./src/db/client.js`). */
  import: string;
  /** The exported client type: `PrismaClient`. */
  type: string;
}

export interface GenerateOptions {
  /** A Prisma-backed repository and a `<name>.prisma` model instead of SQL and a migration. Default false. */
  prisma?: boolean;
  /** Every route needs a signed-in user (`meta.auth: true`). Default true. */
  auth?: boolean;
  /** Rows belong to the request's tenant (`requireTenantId()`), with an indexed tenant column. Default false. */
  tenant?: boolean;
  /** The service calls the repository (CRUD) instead of being an empty class. Default true. */
  crud?: boolean;
  /** A delete marks the row (deleted_at) instead of removing it. Default false. */
  softDelete?: boolean;
  /** Default `{ import: '@prisma/client', type: 'PrismaClient' }`. */
  prismaClient?: PrismaClientImport;
  /** The number of the SQL migration a SQL repository comes with. Default 1. */
  migrationNumber?: number;
  /** The header requests name their tenant with (`modules.tenancy.header`). Default `x-tenant-id`. */
  tenantHeader?: string;
}

export type ResolvedOptions = Required<GenerateOptions>;

export const DEFAULT_PRISMA_CLIENT: PrismaClientImport = { import: '@prisma/client', type: 'PrismaClient' };

/** Project defaults for the `svc make:*` commands; flags override them in both directions. */
export interface GeneratorDefaults {
  prisma?: boolean;
  prismaClient?: PrismaClientImport;
}

export function resolveOptions(options: GenerateOptions = {}): ResolvedOptions {
  const known = new Set<string>([
    'prisma',
    'auth',
    'tenant',
    'crud',
    'softDelete',
    'prismaClient',
    'migrationNumber',
    'tenantHeader',
  ]);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new TypeError(`Unknown generate option '${key}'.`);
  }
  const prismaClient = options.prismaClient ?? DEFAULT_PRISMA_CLIENT;
  checkPrismaClient(prismaClient, 'prismaClient');
  const migrationNumber = options.migrationNumber ?? 1;
  if (!Number.isInteger(migrationNumber) || migrationNumber < 1 || migrationNumber > 9999) {
    throw new TypeError(
      `migrationNumber must be an integer from 1 to 9999 (got ${String(migrationNumber)}).`,
    );
  }
  const tenantHeader = options.tenantHeader ?? DEFAULT_TENANT_HEADER;
  if (typeof tenantHeader !== 'string' || !/^[A-Za-z0-9-]+$/.test(tenantHeader)) {
    throw new TypeError(
      `tenantHeader must be a header name such as x-tenant-id (got ${String(tenantHeader)}).`,
    );
  }
  return {
    prisma: options.prisma ?? false,
    auth: options.auth ?? true,
    tenant: options.tenant ?? false,
    crud: options.crud ?? true,
    softDelete: options.softDelete ?? false,
    prismaClient,
    migrationNumber,
    tenantHeader: tenantHeader.toLowerCase(),
  };
}

/** Refuses defaults that are not { prisma?: boolean, prismaClient?: { import, type } }. */
export function checkGeneratorDefaults(value: unknown, where: string): GeneratorDefaults {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object: { prisma?: boolean, prismaClient?: { import, type } }.`);
  }
  const defaults = value as Record<string, unknown>;
  for (const key of Object.keys(defaults)) {
    if (key !== 'prisma' && key !== 'prismaClient') {
      throw new TypeError(`${where} has an unknown key '${key}' (known: prisma, prismaClient).`);
    }
  }
  if (defaults.prisma !== undefined && typeof defaults.prisma !== 'boolean') {
    throw new TypeError(`${where}.prisma must be true or false.`);
  }
  if (defaults.prismaClient !== undefined) checkPrismaClient(defaults.prismaClient, `${where}.prismaClient`);
  return defaults as GeneratorDefaults;
}

function checkPrismaClient(value: unknown, where: string): asserts value is PrismaClientImport {
  const client = value as Partial<Record<string, unknown>> | null;
  const ok =
    typeof client === 'object' &&
    client !== null &&
    Object.keys(client).every((key) => key === 'import' || key === 'type') &&
    typeof client.import === 'string' &&
    client.import.length > 0 &&
    typeof client.type === 'string' &&
    /^[A-Za-z_$][\w$]*$/.test(client.type);
  if (!ok) {
    throw new TypeError(
      `${where} must be { import: '<module or ./path>', type: '<exported type name>' }, e.g. { import: '@prisma/client', type: 'PrismaClient' }.`,
    );
  }
}
