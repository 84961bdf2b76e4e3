// `svc init <dir>` makes an app that works with its README's two commands: npm install && npm start, npm test.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { runSvc } from './run-svc.js';

interface Finished {
  code: number | null;
  output: string;
}

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

let app: string;

beforeAll(async () => {
  app = join(await mkdtemp(join(tmpdir(), 'svc-init-')), 'task-board');
  const created = await runSvc(['init', app]);
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
    const child = spawn('npm', ['start'], {
      cwd: app,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start:\n${output}`)), 60_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
      });
      const response = await fetch(`${url}/tasks`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
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
