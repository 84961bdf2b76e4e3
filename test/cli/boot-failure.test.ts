// `svc start` on an entry whose start is refused, as the person starting it sees it: the code, the message,
// the option or directory at fault and the hint, exit 1, and no stack unless SVC_DEBUG=1. The entry is the
// usual one (loadConfig, then the modules and stores the spec names), so each refusal is the runtime's own.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runSvc, tempProject } from './run-svc.js';

const SPEC = `svc: 1
name: refusals
version: 1.0.0
server:
  port: \${PORT:-3000}
  entry: src/server.ts
stores:
  database: \${DATABASE_URL:-pglite:.svc/data}
modules:
  auth: true
routes: {}
`;

const SERVER = `import { authModule } from 'svckit/auth';
import { openStores } from 'svckit/stores';
import { loadConfig } from '../generated/config.js';

const config = loadConfig();
authModule(config.modules.auth);
const stores = await openStores(config.stores);
await stores.close();
console.log('started');
`;

/** A stack frame line as node prints it. */
const STACK_LINE = /^\s+at /m;
const SECRET = 'a-development-secret-of-32-characters';
/** Nothing from the environment of the test run decides the outcome. */
const BASE_ENV = {
  NODE_ENV: 'development',
  SVC_SECRET: SECRET,
  PORT: undefined,
  DATABASE_URL: 'memory',
  SVC_PGLITE_DIR: undefined,
  SVC_DEBUG: undefined,
};

let dir: string;

beforeAll(async () => {
  dir = await tempProject({
    'package.json': '{ "type": "module", "private": true }\n',
    'svc.config.yaml': SPEC,
    'src/server.ts': SERVER,
  });
  await mkdir(join(dir, 'node_modules'));
  await symlink(REPO_ROOT, join(dir, 'node_modules', 'svckit'), 'dir');
  const built = await runSvc(['build', `--dir=${dir}`]);
  expect(built.code, built.stderr).toBe(0);
});

/**
 * `svc start` with the entry named: svc reads no spec first (which would refuse a bad PORT itself, as a spec
 * problem), so the service's own start meets every mistake.
 */
function start(env: NodeJS.ProcessEnv) {
  return runSvc(['start', 'src/server.ts', `--dir=${dir}`], { cwd: dir, env: { ...BASE_ENV, ...env } });
}

describe('svc start reports a refused start for a person', () => {
  test('the entry starts when nothing is wrong', async () => {
    const run = await start({});
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain('started');
  });

  test('AUTH_WEAK_SECRET in production: which variable, and how to make a secret', async () => {
    const run = await start({ NODE_ENV: 'production', SVC_SECRET: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Refused to start \(AUTH_WEAK_SECRET\): .*SVC_SECRET/m);
    expect(run.stderr).toContain(
      'hint: set SVC_SECRET to 32+ random characters, e.g. `openssl rand -base64 32`',
    );
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  test('CONFIG_INVALID: the option, where its value came from and the hint', async () => {
    const run = await start({ PORT: 'eighty' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Refused to start \(CONFIG_INVALID\): server\.port: .*"eighty" \(from \$\{PORT\}\)$/m,
    );
    expect(run.stderr).toMatch(/^ {2}hint: correct the setting named above/m);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stderr).not.toContain('details');
  });

  test('STORE_LOCKED: the directory another process holds and what to do', async () => {
    // This test's own process holds the lock: alive, and not the service's.
    await mkdir(join(dir, '.svc', 'data'), { recursive: true });
    await writeFile(join(dir, '.svc', 'data', 'svc.lock'), `${process.pid}\n`);
    const run = await start({ DATABASE_URL: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^Refused to start \\(STORE_LOCKED\\): The embedded database in \\.svc/data is in use by pid ${process.pid}`,
        'm',
      ),
    );
    expect(run.stderr).toMatch(/^ {2}hint: stop the other process that uses it/m);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  test('SVC_DEBUG=1 adds the stack', async () => {
    const run = await start({ PORT: 'eighty', SVC_DEBUG: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Refused to start \(CONFIG_INVALID\)/m);
    expect(run.stderr).toMatch(STACK_LINE);
  });
});
