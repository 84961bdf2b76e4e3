// Help texts of the `svc` command. Every usage error prints the relevant one and exits 1.
import { MAKE_SUMMARY } from '../make/usage.js';

export const MAIN_USAGE = `Usage: svc <command> [options]

Commands:
  build [--check]                     compile svc.config.yaml into generated/ (--check: fail if stale)
  dev                                 build, start, rebuild and restart on changes
  start [entry]                       run the service (server.entry of svc.config.yaml by default)
  mcp [entry]                         serve the service's tools to an agent over stdio (MCP)
  test [files...]                     run the project's tests (test/**/*.test.ts) with node's test runner
  generate:docs [--out=<path>|--stdout]
                                      write the OpenAPI document (default: openapi.json)
  init <dir>                          create a new svc application in <dir>
  db:migrate                          apply pending SQL migrations to stores.database
  auth:reseal [--batch=<n>]           re-seal stored MFA secrets with the first key of SVC_MFA_KEYS
${MAKE_SUMMARY}

Options:
  --dir=<path>                        project directory (default: the current directory)
  -h, --help                          show help (also: svc <command> --help)
  -v, --version                       print the svckit version`;

export const COMMAND_USAGE: Record<string, string> = {
  build: `Usage: svc build [--check] [--dir=<path>]

Compiles svc.config.yaml into generated/: types.ts, validators.js, errors.ts, routes.ts, config.ts,
openapi.json, openapi.d.ts (its types, for openapi-fetch), mcp-tools.json and client.ts. Unchanged files
are not rewritten.

  --check      write nothing; exit 1 and name every file that is stale or missing`,
  dev: `Usage: svc dev [--dir=<path>]

Builds, starts the service, rebuilds when svc.config.yaml changes and restarts when the build or src/
changes. A spec error is printed and the running service is kept until the spec is fixed. The project's
TypeScript (tsc --watch, with its tsconfig.json) checks types beside the service: errors are printed as
file:line:col and never stop it. The service runs with NODE_ENV=development unless NODE_ENV is set.`,
  start: `Usage: svc start [entry] [--dir=<path>]

Runs the service's entry module (server.entry of svc.config.yaml, default src/server.ts) with TypeScript
support. PORT, HOST and the other variables referenced by svc.config.yaml are read at start; NODE_ENV is
passed as it is (unset counts as production). A refused start prints its code, message and a hint, and
exits 1; SVC_DEBUG=1 adds the stack.`,
  mcp: `Usage: svc mcp [entry] [--dir=<path>]

Runs the service's entry like svc start, but serves the routes marked \`mcp: true\` as tools over
stdin/stdout (newline-delimited JSON-RPC, the MCP stdio transport) instead of listening: point a desktop
agent's "command" at it. Logs go to stderr. SVC_MCP_AUTHORIZATION (e.g. "Bearer <token>") is sent as
the Authorization header of every tool call; without it, tools that need a signed-in user answer
AUTH_REQUIRED. An embedded database (pglite:) lives in .svc/mcp-data, not beside a running svc dev or
npm start in .svc/data (SVC_PGLITE_DIR chooses another); a PostgreSQL database is shared.`,
  test: `Usage: svc test [files...] [--dir=<path>]

Runs test/**/*.test.ts (or the given files) with node's built-in test runner and TypeScript support,
with NODE_ENV=test (always) and SVC_PGLITE_DIR=memory unless set: an embedded database starts empty in
every run and .svc/data is never touched.`,
  'generate:docs': `Usage: svc generate:docs [--out=<path> | --stdout] [--dir=<path>]

Writes the OpenAPI 3.1 document of svc.config.yaml to openapi.json (default), to --out, or to stdout.`,
  'db:migrate': `Usage: svc db:migrate [--dir=<path>]

Applies svckit's pending SQL migrations (numbered, each once, in order) to the database svc.config.yaml
names in stores.database (postgres://… or pglite:<dir>), reading its \${VAR} references from the
environment. Safe to run from several processes at once. Does nothing when stores.database is memory.`,
  'auth:reseal': `Usage: svc auth:reseal [--batch=<n>] [--dir=<path>]

After an MFA key rotation (the new key put first in SVC_MFA_KEYS, the old ones after it), re-seals every
stored TOTP secret in stores.database with the first key, <n> users at a time (default 500), printing
progress after each batch and a summary. A secret that does not open (sealed for another user, or with a
key no longer in SVC_MFA_KEYS) is reported by user id and left as it is; the run then exits 1. Stopped
(Ctrl-C, SIGTERM, a crash), it continues where it stopped when run again: .svc/reseal-state.json keeps the
last finished user and is removed when a run completes. Then drop the old keys from SVC_MFA_KEYS.

  --batch=<n>  users per batch, 1 to 10000 (default 500)`,
  init: `Usage: svc init <dir>

Creates a new svc application in <dir> (which must not exist or be empty): svc.config.yaml, src/,
test/, package.json. Then: cd <dir> && npm install && npm start, and npm test.`,
};

/** Raised for a wrong command line; main() prints the usage text and exits 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}
