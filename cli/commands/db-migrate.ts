// svc db:migrate: applies the pending SQL migrations, svckit's stores' then the application's own
// (`migrations/NNNN-name.sql` in the project), to the database svc.config.yaml names in `stores.database`
// (with `${VAR}` references and SVC_PGLITE_DIR read from the environment, as at start), in one transaction,
// and prints what it did for each.
import { resolveSvcConfig } from '../../runtime/config/svc-config.js';
import { appMigrationsFor, databaseKind, resolvedDatabaseUrl } from '../../runtime/stores/open.js';
import { migrate, openSqlClient } from '../../runtime/stores/sql/index.js';
import { loadSpec } from '../../spec/index.js';
import { parseCommand } from '../args.js';
import { SPEC_FILE, projectDir, specFile } from '../project.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';

export async function dbMigrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand('db:migrate', args, {}, { min: 0, max: 0 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE['db:migrate']}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const spec = await loadSpec(specFile(dir), { env: io.env });
  const { stores } = resolveSvcConfig({ ...spec, source: SPEC_FILE }, io.env);
  // Read first, wherever the database is: a misnamed migration file is reported even in memory mode.
  const appMigrations = appMigrationsFor(undefined, dir);
  const url = resolvedDatabaseUrl(stores.database, dir, io.env);
  if (url === undefined || databaseKind(url) === 'memory') {
    io.stdout.write(
      'svc db:migrate: stores.database is memory or not set; nothing to migrate (an in-memory database is migrated at each start).\n',
    );
    return 0;
  }
  if (url === 'pglite:memory') {
    io.stdout.write(
      'svc db:migrate: the database is pglite:memory; nothing to migrate (an in-memory database is migrated at each start).\n',
    );
    return 0;
  }
  const client = await openSqlClient(url);
  try {
    const { applied, appApplied } = await migrate(client, { appMigrations });
    const report = (subject: string, done: readonly string[]) =>
      done.length === 0
        ? `svc db:migrate: ${subject}: ${client.kind} is up to date.\n`
        : `svc db:migrate: ${subject}: applied ${done.join(', ')} to ${client.kind}.\n`;
    io.stdout.write(report('svckit', applied.map(String)));
    if (appMigrations !== undefined) io.stdout.write(report('app (migrations/)', appApplied ?? []));
  } finally {
    await client.close();
  }
  return 0;
}
