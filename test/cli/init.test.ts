// `svc init <dir>` makes an app that works with its README's two commands: npm install && npm start, npm test.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { startProcess } from '../e2e/service-process.js';
import { startMailbox } from '../mail/mailbox.js';
import { parseMail } from '../mail/mime.js';
import { typeCheckProject } from '../generator/ts-compile.js';
import { REPO_ROOT, runCommand, runSvc, runSvcBinary } from './run-svc.js';

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

  test('links svckit by a path relative to the app, so the two folders can move together', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const link = manifest.dependencies.svckit ?? '';
    expect(link).toMatch(/^file:\.\.\//);
    expect(resolve(app, link.slice('file:'.length))).toBe(resolve(REPO_ROOT));
  });

  test('refuses a directory that is not empty', async () => {
    const result = await runSvc(['init', app]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not empty');
  });

  // npm test itself runs for real in test/cli/make.test.ts, on an app svc init made the same way with two
  // resources added (the three task tests among the ones it runs). Here its type-check is run in this process with the
  // app's tsconfig, judging the app's own files (a separate tsc would type-check all of svckit's sources again,
  // which the repository's own type-check covers).
  test('npm test type-checks the handlers against the generated types', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.test).toContain('tsc --noEmit');
    const file = join(app, 'src/modules/tasks/tasks.handlers.ts');
    const original = await readFile(file, 'utf8');
    // A task whose `done` is a string does not match the spec's Task resource.
    await writeFile(file, original.replace('done: false }', "done: 'no' }"));
    try {
      const appsOwn = (path: string) => !path.startsWith('..') && !path.includes('node_modules');
      expect(typeCheckProject(join(app, 'tsconfig.json'), appsOwn)).toEqual([
        expect.stringMatching(/^src\/modules\/tasks\/tasks\.handlers\.ts\(\d+,\d+\): error TS2322/),
      ]);
    } finally {
      await writeFile(file, original);
    }
  });
});

// The spec alone turns the modules on: no line of the app's code changes.
describe('svc init, then every module enabled in svc.config.yaml', () => {
  const SECRET = 'an-init-app-secret-that-is-long-enough-0123';
  const json = { 'content-type': 'application/json' };
  const account = { email: 'ada@example.com', password: 'a long enough password' };

  beforeAll(async () => {
    const specFile = join(app, 'svc.config.yaml');
    const spec = await readFile(specFile, 'utf8');
    const modules = spec.slice(spec.indexOf('\nmodules:\n') + 1, spec.indexOf('\nresources:\n') + 1);
    expect(modules).toMatch(/^modules:\n/);
    await writeFile(
      specFile,
      spec.replace(
        modules,
        [
          'modules:',
          '  auth: true',
          '  edge: true',
          '  idempotency: true',
          '  mcp: true',
          "  mail: { url: '${SMTP_URL:-}' }",
          '',
        ].join('\n'),
      ),
    );
  });

  /** Registers, asks for a reset, and returns what the service answered. */
  async function requestReset(url: string): Promise<void> {
    const registered = await fetch(`${url}/auth/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(account),
    });
    expect(registered.status).toBe(201);
    const forgot = await fetch(`${url}/auth/password/forgot`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: account.email }),
    });
    expect(forgot.status).toBe(200);
  }

  test('npm start serves the tasks, accounts, the API description, metrics and MCP, and logs the reset mail', async () => {
    const service = await startProcess('npm', ['start'], app, {
      timeoutMs: 60_000,
      env: { ...process.env, NODE_ENV: '', SVC_PGLITE_DIR: 'memory' },
    });
    try {
      const tasks = await fetch(`${service.url}/tasks`);
      expect(tasks.status).toBe(200);
      expect(await tasks.json()).toEqual([]);
      expect((await fetch(`${service.url}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${service.url}/metrics`)).status).toBe(200);
      const initialize = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { ...json, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
      expect(initialize.status).toBe(200);
      await requestReset(service.url);
      // Development (npm start's default): the mail is one JSON line in the log, with its link.
      await expect
        .poll(() => service.output().match(/^\{.*"password-reset".*$/m)?.[0], { timeout: 10_000 })
        .toBeDefined();
      const line = JSON.parse(service.output().match(/^\{.*"password-reset".*$/m)![0]) as {
        to: string;
        link: string;
      };
      expect(line.to).toBe(account.email);
      expect(line.link).toMatch(/\/auth\/password\/reset\?token=/);
    } finally {
      await service.stop();
    }
  }, 90_000);

  test('in production the reset mail reaches a real SMTP server through modules.mail.url', async () => {
    const mailbox = await startMailbox();
    const service = await startProcess('npm', ['start'], app, {
      timeoutMs: 60_000,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        SVC_SECRET: SECRET,
        SMTP_URL: mailbox.url,
        SVC_PGLITE_DIR: 'memory',
      },
    });
    try {
      await requestReset(service.url);
      const delivery = await mailbox.next();
      expect(delivery.to).toEqual([account.email]);
      const mail = parseMail(delivery.raw);
      expect(mail.parts.get('text/plain')).toMatch(/\/auth\/password\/reset\?token=/);
    } finally {
      await service.stop();
      await mailbox.close();
    }
  }, 90_000);
});
