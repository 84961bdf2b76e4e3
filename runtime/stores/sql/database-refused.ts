// A PostgreSQL server that answers but does not let the service in: the database named does not exist, or it
// refuses the user or the password. Not an outage that passes by itself (STORE_UNAVAILABLE) but a setting to
// correct, so a start or `svc db:migrate` is refused with STORE_DATABASE_REFUSED and what to change. The
// server's reason names the database or the user, never the password.
import { errors } from '../../../generated/modules/errors.js';
import { sqlState } from './unavailable.js';

const SETTING = 'stores.database (DATABASE_URL)';

/** What to change, by SQLSTATE; `name` is the database the server's reason names. */
const HINTS: Record<string, (reason: string) => string> = {
  // invalid_catalog_name
  '3D000': (reason) => {
    const name = /database "([^"]+)"/.exec(reason)?.[1];
    const create = name === undefined ? 'create the database' : `create the database (createdb ${name})`;
    return `${create}, or correct the database name in ${SETTING}`;
  },
  // invalid_password
  '28P01': () => `correct the user name and password in ${SETTING}`,
  // invalid_authorization_specification: no such role, or pg_hba.conf turns the connection away
  '28000': () =>
    `correct the user in ${SETTING}, or let it connect from this host in the server's pg_hba.conf`,
};

/** STORE_DATABASE_REFUSED when `error` is the server refusing the database or the credentials, else `error`. */
export function databaseRefused(error: unknown): unknown {
  const state = sqlState(error);
  const hint = state === undefined ? undefined : HINTS[state];
  if (hint === undefined) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return errors.STORE_DATABASE_REFUSED({
    message: `PostgreSQL refused the connection: ${reason}.`,
    hint: hint(reason),
    details: { sqlState: state },
    cause: error,
  });
}
