// The environment each command gives the process it runs: `svc test` always NODE_ENV=test and fresh data in
// memory, `svc mcp` an embedded database of its own beside a running `svc dev`, `svc dev` NODE_ENV=development
// unless set, `svc start` the user's own; a SVC_PGLITE_DIR the user set is kept by every command.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { devEnv } from '../../cli/service-env.js';
import { runSvc, tempProject } from './run-svc.js';

const PRINT_ENV = `console.log(JSON.stringify({
  NODE_ENV: process.env.NODE_ENV ?? null,
  SVC_PGLITE_DIR: process.env.SVC_PGLITE_DIR ?? null,
}));
`;

const RECORD_ENV = `import { writeFileSync } from 'node:fs';
import { test } from 'node:test';

test('records the environment it runs in', () => {
  const env = { NODE_ENV: process.env.NODE_ENV ?? null, SVC_PGLITE_DIR: process.env.SVC_PGLITE_DIR ?? null };
  writeFileSync('env.json', JSON.stringify(env));
});
`;

/** Neither variable set by the user (vitest sets NODE_ENV=test in its own environment). */
const UNSET = { NODE_ENV: undefined, SVC_PGLITE_DIR: undefined };

let dir: string;

beforeAll(async () => {
  dir = await tempProject({
    'package.json': '{ "type": "module", "private": true }\n',
    'print-env.ts': PRINT_ENV,
    'test/env.test.ts': RECORD_ENV,
  });
});

async function printedEnv(command: 'start' | 'mcp', env: NodeJS.ProcessEnv): Promise<unknown> {
  const run = await runSvc([command, 'print-env.ts', `--dir=${dir}`], { env });
  expect(run.code, run.output).toBe(0);
  return JSON.parse(run.stdout);
}

async function testRunEnv(env: NodeJS.ProcessEnv): Promise<unknown> {
  const run = await runSvc(['test', 'test/env.test.ts', `--dir=${dir}`], { env });
  expect(run.code, run.output).toBe(0);
  return JSON.parse(await readFile(join(dir, 'env.json'), 'utf8'));
}

describe('the environment of the process a command runs', () => {
  test('svc test: NODE_ENV=test even when set otherwise, and an in-memory database', async () => {
    expect(await testRunEnv({ ...UNSET, NODE_ENV: 'production' })).toEqual({
      NODE_ENV: 'test',
      SVC_PGLITE_DIR: 'memory',
    });
  });

  test('svc test keeps a SVC_PGLITE_DIR the user set', async () => {
    expect(await testRunEnv({ ...UNSET, SVC_PGLITE_DIR: '/var/lib/app-test' })).toEqual({
      NODE_ENV: 'test',
      SVC_PGLITE_DIR: '/var/lib/app-test',
    });
  });

  test('svc mcp: its own embedded database under .svc/mcp-data, unless SVC_PGLITE_DIR is set', async () => {
    expect(await printedEnv('mcp', UNSET)).toEqual({
      NODE_ENV: null,
      SVC_PGLITE_DIR: join(dir, '.svc', 'mcp-data'),
    });
    expect(await printedEnv('mcp', { ...UNSET, SVC_PGLITE_DIR: 'memory' })).toEqual({
      NODE_ENV: null,
      SVC_PGLITE_DIR: 'memory',
    });
  });

  test('svc start: the environment as the user set it', async () => {
    expect(await printedEnv('start', UNSET)).toEqual({ NODE_ENV: null, SVC_PGLITE_DIR: null });
    expect(await printedEnv('start', { NODE_ENV: 'production', SVC_PGLITE_DIR: '/data' })).toEqual({
      NODE_ENV: 'production',
      SVC_PGLITE_DIR: '/data',
    });
  });

  // svc dev end to end (its service answers with NODE_ENV=development): test/cli/dev.test.ts.
  test('svc dev: NODE_ENV=development unless set, then the value set', () => {
    expect(devEnv({ PORT: '3000' })).toEqual({ PORT: '3000', NODE_ENV: 'development' });
    expect(devEnv({ NODE_ENV: '' }).NODE_ENV).toBe('development');
    expect(devEnv({ NODE_ENV: 'production' }).NODE_ENV).toBe('production');
  });
});
