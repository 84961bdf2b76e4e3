// `svc dev` as a user runs it, on an app made by `svc init`: builds and starts, rebuilds and restarts on spec
// changes, restarts on source changes, keeps the running service when the spec is broken (also on source
// changes), reports a service that stopped on its own (and only then) or could not be started, and stops
// together with its service on SIGTERM, also in the middle of a rebuild. On a small project with its own
// TypeScript: type errors are printed while the service keeps answering, with NODE_ENV=development.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, SVC_BIN, runSvc, tempProject } from './run-svc.js';

// Longest wait for one expected output line (a build plus a service start take a few seconds). A test may
// wait for several, hence the describe's timeout.
const WAIT_MS = 30_000;
const UNPLANNED_EXIT = /service (exited with code|was killed by)/;
const HANDLERS = 'src/modules/tasks/tasks.handlers.ts';

/** `svc dev` in its own process group, so that killing the group also kills the service it started. */
class DevProcess {
  /** stdout and stderr of svc dev and its service, in arrival order. */
  output = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly listeners = new Set<() => void>();

  /**
   * `node`: the node binary svc dev runs with, and so starts its services with (its process.execPath).
   * `env`: added to this process's environment (a variable set to undefined is removed).
   */
  constructor(cwd: string, node: string, port: number, env: NodeJS.ProcessEnv = {}) {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env };
    for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
    this.child = spawn(node, [SVC_BIN, 'dev'], {
      cwd,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      for (const listener of this.listeners) listener();
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code) => {
        resolve(code);
        for (const listener of this.listeners) listener();
      });
    });
  }

  /** The first match of `pattern` in the output after `mark` (an earlier `output.length`). */
  waitFor(pattern: RegExp, mark: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        done();
        reject(new Error(`${why} waiting for ${pattern}; output:\n${this.output}`));
      };
      const check = () => {
        const match = pattern.exec(this.output.slice(mark));
        if (match) {
          done();
          resolve(match);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) fail('svc dev exited');
      };
      const timer = setTimeout(() => fail('timed out'), WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** The URL of the service that started after `mark`. */
  async started(mark: number): Promise<string> {
    return (await this.waitFor(/listening on (http:\/\/\S+)/, mark))[1]!;
  }

  terminate(): void {
    this.child.kill('SIGTERM');
  }

  /** The exit code of svc dev, which must come within WAIT_MS. */
  stopped(): Promise<number | null> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`svc dev is still running; output:\n${this.output}`)),
        WAIT_MS,
      );
      void this.exited.then((code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  killAll(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

let root: string;
let app: string;
/** A link to (or copy of) this node binary that svc dev runs with: removing it makes starting a service fail. */
let node: string;
let dev: DevProcess | undefined;
const devs: DevProcess[] = [];
/** The running service. */
let url: string;

async function edit(file: string, from: string, to: string): Promise<void> {
  const content = await readFile(join(app, file), 'utf8');
  if (!content.includes(from)) throw new Error(`${file} does not contain ${from}`);
  await writeFile(join(app, file), content.replace(from, to));
}

/** Rewrites `file` unchanged: a save without changes, which the watcher reports all the same. */
async function touch(file: string): Promise<void> {
  await writeFile(join(app, file), await readFile(join(app, file)));
}

async function installNode(): Promise<void> {
  await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
}

/** svc dev on the app, each service it starts listening on `port`. */
function startDev(port: number): DevProcess {
  // Builds and restarts are the subject: the stores stay in memory (an embedded database costs each start).
  const started = new DevProcess(app, node, port, { DATABASE_URL: 'memory' });
  devs.push(started);
  return started;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Misspells a key of the createTask route in the spec; `fixSpec` puts it back. */
const breakSpec = () => edit('svc.config.yaml', 'method: POST', 'methd: POST');
const fixSpec = () => edit('svc.config.yaml', 'methd: POST', 'method: POST');

/** Waits until svc dev, after `mark`, reported breakSpec's mistake with its position and hint, and kept the service. */
async function brokenSpecReported(mark: number): Promise<void> {
  // The report and the line that follows it reach the test through two pipes (stderr, stdout): in either order.
  await dev!.waitFor(/svc dev: keeping the running service/, mark);
  await dev!.waitFor(/svc\.config\.yaml:\d+:\d+ error: unknown key 'methd' in routes\.createTask/, mark);
  await dev!.waitFor(/hint: did you mean 'method'\?/, mark);
}

async function createTask(title: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-dev-'));
  app = join(root, 'app');
  const created = await runSvc(['init', app]);
  expect(created.code, created.stderr).toBe(0);
  // Instead of `npm install`: the app's svckit is this checkout, as `svc init` would install it from here.
  await mkdir(join(app, 'node_modules'));
  await symlink(REPO_ROOT, join(app, 'node_modules', 'svckit'), 'dir');
  node = join(root, 'node');
  await installNode();
  // A fixed port: the last test shows that no new service started after SIGTERM because nothing listens there.
  dev = startDev(await freePort());
});

afterAll(async () => {
  for (const started of devs) started.killAll();
  await rm(root, { recursive: true, force: true });
});

describe('svc dev', { timeout: 45_000 }, () => {
  test('builds and starts the service', async () => {
    await dev!.waitFor(/svc dev: built \(\d+ files written\)/, 0);
    url = await dev!.started(0);
    // The app's node_modules holds svckit alone here.
    await dev!.waitFor(/svc dev: type-checking is off: the project has no typescript/, 0);
    const response = await fetch(`${url}/tasks`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    expect(await createTask('before the spec change')).toMatchObject({ status: 201 });
  });

  test('a spec change rebuilds and restarts the service without reporting it as an exit', async () => {
    const mark = dev!.output.length;
    await edit('svc.config.yaml', 'method: GET\n    path: /tasks\n', 'method: GET\n    path: /backlog\n');
    await dev!.waitFor(/svc dev: svc\.config\.yaml changed/, mark);
    await dev!.waitFor(/svc dev: built \([1-9]\d* files written\)/, mark);
    url = await dev!.started(mark);

    // The new service: listTasks moved, and the task made before the restart is gone with the old process.
    const moved = await fetch(`${url}/backlog`);
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual([]);
    expect((await fetch(`${url}/tasks`)).status).toBe(405);
    expect(await readFile(join(app, 'generated', 'openapi.json'), 'utf8')).toContain('"/backlog"');
    expect(dev!.output.slice(mark)).not.toMatch(UNPLANNED_EXIT);
  });

  test('a broken spec is reported with its position and the running service is kept', async () => {
    expect(await createTask('survives the broken spec')).toMatchObject({ status: 201 });
    const mark = dev!.output.length;
    await breakSpec();
    await brokenSpecReported(mark);
    expect(dev!.output.slice(mark)).not.toMatch(/svc dev: built|listening on/);

    // Same process (same port, same in-memory tasks).
    const response = await fetch(`${url}/backlog`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([expect.objectContaining({ title: 'survives the broken spec' })]);

    const fixed = dev!.output.length;
    await fixSpec();
    await dev!.waitFor(/svc dev: built \(0 files written\)/, fixed);
    url = await dev!.started(fixed);
    expect(dev!.output.slice(mark)).not.toMatch(UNPLANNED_EXIT);
  });

  test('a source change while the spec is broken keeps the running service', async () => {
    expect(await createTask('survives the source change')).toMatchObject({ status: 201 });
    const broken = dev!.output.length;
    await breakSpec();
    await brokenSpecReported(broken);

    const mark = dev!.output.length;
    await touch(HANDLERS);
    await dev!.waitFor(/svc dev: src\/modules\/tasks\/tasks\.handlers\.ts changed/, mark);
    await brokenSpecReported(mark);
    expect(dev!.output.slice(mark)).not.toMatch(/listening on|SIGTERM received/);
    const response = await fetch(`${url}/backlog`);
    expect(response.status).toBe(200);
    expect(await response.json()).toContainEqual(
      expect.objectContaining({ title: 'survives the source change' }),
    );

    const fixed = dev!.output.length;
    await fixSpec();
    url = await dev!.started(fixed);
    expect(dev!.output.slice(broken)).not.toMatch(UNPLANNED_EXIT);
  });

  test('a source change restarts the service with the new code', async () => {
    expect(await createTask('before the source change')).toMatchObject({
      status: 201,
      body: { done: false },
    });
    const mark = dev!.output.length;
    await edit(HANDLERS, 'done: false }', 'done: true }');
    await dev!.waitFor(/svc dev: src\/modules\/tasks\/tasks\.handlers\.ts changed/, mark);
    url = await dev!.started(mark);
    expect(await createTask('after the source change')).toMatchObject({ status: 201, body: { done: true } });
    expect(dev!.output.slice(mark)).not.toMatch(/svc dev: built/);
    expect(dev!.output.slice(mark)).not.toMatch(UNPLANNED_EXIT);
  });

  test('a service that stops on its own is reported, and the next change starts it again', async () => {
    const crash = dev!.output.length;
    await edit(HANDLERS, '// Handlers', "throw new Error('broken on purpose');\n// Handlers");
    await dev!.waitFor(/svc dev: service exited with code 1; waiting for changes\./, crash);
    expect(dev!.output.slice(crash)).toContain('broken on purpose');
    await expect(fetch(`${url}/backlog`)).rejects.toThrow();

    const fixed = dev!.output.length;
    await edit(HANDLERS, "throw new Error('broken on purpose');\n", '');
    url = await dev!.started(fixed);
    expect((await fetch(`${url}/backlog`)).status).toBe(200);
  });

  test('a service that cannot be started is reported, and svc dev waits for the next change', async () => {
    const mark = dev!.output.length;
    await rm(node);
    await touch(HANDLERS);
    await dev!.waitFor(/svc dev: could not run the service: .*ENOENT; waiting for changes\.\n/, mark);
    await expect(fetch(`${url}/backlog`)).rejects.toThrow();

    const restored = dev!.output.length;
    await installNode();
    await touch(HANDLERS);
    url = await dev!.started(restored);
    expect((await fetch(`${url}/backlog`)).status).toBe(200);
    expect(dev!.output.slice(mark)).not.toMatch(UNPLANNED_EXIT);
  });

  // The signal is sent when the "changed" line arrives, i.e. as the rebuild starts; the rebuild (build, stop the
  // old service, start a new one, which takes a second to listen) lasts far longer than the signal takes, so it
  // lands mid-rebuild. svc dev cannot exit while a service it started runs (the child keeps its event loop
  // alive), so its exit shows that none remains, and the fixed port that nothing listens on it. (Not the process
  // group: the service's esbuild helper outlives it for a moment, as a zombie until reaped.) SIGTERM while svc
  // dev waits for changes: the last test, on the typed project.
  test('SIGTERM during a rebuild stops svc dev and its service, exit code 0, and starts no new one', async () => {
    expect((await fetch(`${url}/backlog`)).status).toBe(200);
    const mark = dev!.output.length;
    await edit('svc.config.yaml', 'path: /backlog\n', 'path: /queue\n');
    await dev!.waitFor(/svc dev: svc\.config\.yaml changed/, mark);
    dev!.terminate();
    expect(await dev!.stopped()).toBe(0);
    expect(dev!.output.slice(mark)).toMatch(/SIGTERM received, closing/);
    expect(dev!.output.slice(mark)).not.toMatch(/listening on/);
    await expect(fetch(url)).rejects.toThrow();
  });
});

/** A service that answers its NODE_ENV, with a type error tsx runs anyway; it closes on SIGTERM, as svckit's do. */
const TYPED_PROJECT = {
  'package.json': '{ "type": "module", "private": true }\n',
  'svc.config.yaml': 'svc: 1\nname: typed\nversion: 1.0.0\nroutes: {}\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      strict: true,
      noEmit: true,
      types: ['node'],
      skipLibCheck: true,
    },
    include: ['src'],
  }),
  'src/server.ts': `import { createServer } from 'node:http';
import { answer } from './answer.js';

const server = createServer((_request, response) => response.end(\`\${answer()} \${process.env.NODE_ENV}\`));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') console.log(\`listening on http://127.0.0.1:\${address.port}\`);
});
process.on('SIGTERM', () => {
  console.log('SIGTERM received, closing');
  server.close(() => process.exit(0));
});
`,
  'src/answer.ts':
    "export function answer(): string {\n  const count: number = 'forty-two';\n  return String(count);\n}\n",
};

describe('svc dev type-checks beside the service', { timeout: 60_000 }, () => {
  test('a type error is printed at its position while the service keeps answering; then clean again; SIGTERM stops both', async () => {
    const project = await tempProject(TYPED_PROJECT);
    // The project's own TypeScript and node types, as `npm install` would give it.
    await mkdir(join(project, 'node_modules', '@types'), { recursive: true });
    await symlink(join(REPO_ROOT, 'node_modules', 'typescript'), join(project, 'node_modules', 'typescript'));
    await symlink(
      join(REPO_ROOT, 'node_modules', '@types', 'node'),
      join(project, 'node_modules', '@types', 'node'),
    );
    const typed = new DevProcess(project, process.execPath, 0, { NODE_ENV: undefined });
    devs.push(typed);
    const served = await typed.started(0);
    await typed.waitFor(
      /svc dev: src\/answer\.ts:2:9 error TS2322: Type 'string' is not assignable to type 'number'\.\n/,
      0,
    );
    await typed.waitFor(/svc dev: 1 type error; the service keeps running\.\n/, 0);
    expect(await (await fetch(served)).text()).toBe('forty-two development');
    expect(typed.output).not.toMatch(UNPLANNED_EXIT);

    const mark = typed.output.length;
    await writeFile(
      join(project, 'src', 'answer.ts'),
      'export function answer(): string {\n  return String(42);\n}\n',
    );
    await typed.waitFor(/svc dev: type-check is clean again\.\n/, mark);
    const restarted = await typed.started(mark);
    expect(await (await fetch(restarted)).text()).toBe('42 development');

    // SIGTERM while svc dev waits for changes stops it and its service, exit code 0.
    const stopping = typed.output.length;
    typed.terminate();
    expect(await typed.stopped()).toBe(0);
    expect(typed.output.slice(stopping)).toMatch(/SIGTERM received, closing/);
    expect(typed.output).not.toMatch(UNPLANNED_EXIT);
    await expect(fetch(restarted)).rejects.toThrow();
  });
});
