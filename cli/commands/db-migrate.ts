// svc db:migrate: applies the pending SQL migrations of svckit's stores to the database svc.config.yaml
// names in `stores.database` (with `${VAR}` references read from the environment, as at start).
import { resolveSvcConfig } from '../../runtime/config/svc-config.js';
import { databaseKind, resolvedDatabaseUrl } from '../../runtime/stores/open.js';
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
  const url = stores.database;
  if (url === undefined || databaseKind(url) === 'memory') {
    io.stdout.write('svc db:migrate: stores.database is memory or not set; nothing to migrate.\n');
    return 0;
  }
  const client = await openSqlClient(resolvedDatabaseUrl(url, dir));
  try {
    const { applied } = await migrate(client);
    io.stdout.write(
      applied.length === 0
        ? `svc db:migrate: ${client.kind} is up to date.\n`
        : `svc db:migrate: applied ${applied.map(String).join(', ')} to ${client.kind}.\n`,
    );
  } finally {
    await client.close();
  }
  return 0;
}
