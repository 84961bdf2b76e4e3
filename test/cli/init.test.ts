// `svc init <dir>` makes an app that works with its README's two commands: npm install && npm start, npm test.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { startProcess } from '../e2e/service-process.js';
import { runCommand, runSvc, runSvcBinary } from './run-svc.js';

const npm = (args: string[], cwd: string) => runCommand('npm', args, { cwd });

let app: string;

beforeAll(async () => {
  app = join(await mkdtemp(join(tmpdir(), 'svc-init-')), 'task-board');
  const created = await runSvcBinary(['init', app]);
  expect(created.code, created.stderr).toBe(0);
  const installed = await npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  expect(installed.code, installed.output).toBe(0);
}, 180_000);

describe('svc init', () => {
  test('writes the app and builds its generated/ once', async () => {
    for (const file of [
      'package.json',
      'svc.config.yaml',
      'src/app.ts',
      'src/server.ts',
      'test/tasks.test.ts',
      '.gitignore',
      'generated/routes.ts',
    ]) {
      expect(existsSync(join(app, file)), file).toBe(true);
    }
    const spec = await readFile(join(app, 'svc.config.yaml'), 'utf8');
    expect(spec).toContain('name: task-board');
  });

  test('refuses a directory that is not empty', async () => {
    const result = await runSvc(['init', app]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not empty');
  });

  test('npm start builds and serves the app', async () => {
    const service = await startProcess('npm', ['start'], app, { timeoutMs: 60_000 });
    try {
      const response = await fetch(`${service.url}/tasks`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      await service.stop();
    }
  }, 90_000);

  test('npm test passes', async () => {
    const result = await npm(['test'], app);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/pass 3/);
  }, 120_000);

  test('npm test type-checks the handlers against the generated types', async () => {
    const file = join(app, 'src/modules/tasks/tasks.handlers.ts');
    const original = await readFile(file, 'utf8');
    // A task whose `done` is a string does not match the spec's Task resource.
    await writeFile(file, original.replace('done: false }', "done: 'no' }"));
    try {
      const result = await npm(['test'], app);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/tasks\.handlers\.ts.*error TS2322/);
    } finally {
      await writeFile(file, original);
    }
  }, 120_000);
});
