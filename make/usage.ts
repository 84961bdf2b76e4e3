// Help texts of the `svc make:*` commands. A command without a name prints its usage and exits 1.

const COMMON = `  --dir=<path>        project root (default: the current directory)
  --force             overwrite existing files (and replace the spec's entries of this name); without it,
                      every conflict is listed and nothing is written`;

export const MAKE_USAGE: Record<string, string> = {
  'make:resource': `Usage: svc make:resource <Name> [options]

Adds a resource to the app, spec first: the schemas <Name>, <Name>Input, <Name>Patch and <Name>Page, the
five routes (GET and POST /<plural>, GET, PATCH and DELETE /<plural>/:id) and <NAME>_NOT_FOUND go into
svc.config.yaml (its comments and layout kept); src/modules/<name>/ gets the schema types, a repository, a
service, a plugin and the route handlers, migrations/ the table, test/<name>.test.ts a test through the
generated client; src/app.ts registers the module; then svc build runs. <Name>: BlogPost, blog-post and
"blog post" are the same.

${COMMON}
  --prisma, --no-prisma
                      a Prisma-backed repository and <name>.prisma instead of SQL and a migration
  --no-register       leave src/app.ts alone (prints what to add)
  --public            routes without meta.auth (alias --no-auth); by default each needs a signed-in user
                      and modules.auth is switched on when it is off
  --tenant, --no-tenant
                      rows belong to the request's tenant (default: on when modules.tenancy is on);
                      --tenant switches modules.tenancy on
  --soft-delete       a delete marks the row (deleted_at) instead of removing it`,
  'make:schema': `Usage: svc make:schema <Name> [options]

Adds <Name>, <Name>Input, <Name>Patch and <Name>Page to the resources of svc.config.yaml and writes
src/modules/<name>/<name>.schema.ts, which names their generated types; then svc build runs.

${COMMON}`,
  'make:repository': `Usage: svc make:repository <Name> [options]

Writes src/modules/<name>/<name>.repository.ts on the app's database with its migration under migrations/
(or, with --prisma, on Prisma with <name>.prisma).

${COMMON}
  --prisma, --no-prisma
  --tenant, --no-tenant   rows belong to a tenant (default: on when modules.tenancy is on)
  --soft-delete           a delete marks the row instead of removing it`,
  'make:service': `Usage: svc make:service <Name> [options]

Writes src/modules/<name>/<name>.service.ts: the CRUD service on the repository when <name>.repository.ts
and <name>.schema.ts exist, else a class with its container token and an empty constructor.

${COMMON}
  --crud, --no-crud       choose instead of the default
  --tenant, --no-tenant   the CRUD methods take a tenant (default: on when modules.tenancy is on)`,
  'make:plugin': `Usage: svc make:plugin <Name> [options]

Writes src/modules/<name>/<name>.plugin.ts: the plugin that puts the <Name> service in the app's container,
built on its repository when <name>.repository.ts and <name>.schema.ts exist (as make:service decides).

${COMMON}
  --prisma, --no-prisma   the service's repository on the app's Prisma client
  --crud, --no-crud       the service on its repository, or the empty service`,
  'make:routes': `Usage: svc make:routes <Name> [options]

Adds the five CRUD routes of <Name> and their error codes to svc.config.yaml (and its schemas when they are
missing) and writes src/modules/<name>/<name>.routes.ts with their handlers; then svc build runs.

${COMMON}
  --public                routes without meta.auth (alias --no-auth)
  --tenant, --no-tenant   handlers name the request's tenant (default: on when modules.tenancy is on)`,
  'make:test': `Usage: svc make:test <Name> [options]

Writes test/<name>.test.ts: the CRUD routes of <Name> over HTTP through the generated client.

${COMMON}
  --public                routes without sign-in (alias --no-auth)
  --tenant, --no-tenant   requests name a team of their own (default: on when modules.tenancy is on)`,
};

/** The lines of `svc --help` for these commands. */
export const MAKE_SUMMARY = `  make:resource <Name>                add a resource: spec entries, module files, migration, test, wiring
  make:schema|repository|service|plugin|routes|test <Name>
                                      write one part of a resource (see svc make:<part> --help)`;
