// The published package works outside this checkout: `npm pack` (whose prepack compiles dist/), install the
// tarball into a fresh project and use it there the way a user would, without the svckit-source condition.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runCommand } from '../cli/run-svc.js';
import { startProcess } from '../e2e/service-process.js';

/** Flags that keep npm off the network when its cache already has what it needs, and quiet. */
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/**
 * The test's environment minus what would make a child behave as if it ran inside this checkout: NODE_OPTIONS
 * (which could carry --conditions=svckit-source) and the npm_* variables `npm test` sets for this package.
 */
function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_OPTIONS' || key === 'npm_config_local_prefix') continue;
    if (key.startsWith('npm_package_') || key.startsWith('npm_lifecycle_')) continue;
    env[key] = value;
  }
  return env;
}

const run = (command: string, args: string[], cwd: string) =>
  runCommand(command, args, { cwd, env: outsideEnv() });

interface PackResult {
  filename: string;
  files: { path: string }[];
}

type ExportTarget = string | Record<string, string>;

let temp: string;
let tarball: string;
let packed: string[];
let consumer: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'svc-pack-'));
  const packDir = join(temp, 'pack');
  await mkdir(packDir);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', packDir, ...NPM_FLAGS], REPO_ROOT);
  expect(pack.code, pack.output).toBe(0);
  const [result] = JSON.parse(pack.stdout) as PackResult[];
  tarball = join(packDir, result!.filename);
  packed = result!.files.map((file) => file.path);

  consumer = join(temp, 'consumer');
  await mkdir(consumer);
  await writeFile(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  // The app `svc init` makes below lives in consumer/ and resolves svckit and its own dev dependencies from
  // here, as a workspace would: one install of the tarball instead of two.
  const installed = await run('npm', ['install', tarball, ...appDevDependencies(), ...NPM_FLAGS], consumer);
  expect(installed.code, installed.output).toBe(0);
  // npm pack compiles dist/ (prepack): a full tsc run, which takes minutes when both cores are busy.
}, 300_000);

/** The dev dependencies `svc init` writes, at the versions this checkout uses. */
function appDevDependencies(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return ['typescript', '@types/node'].map((name) => `${name}@${manifest.devDependencies[name]}`);
}

afterAll(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

describe('npm pack', () => {
  test('holds the compiled package and the files it reads at run time, and nothing else', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, ExportTarget>;
      bin: Record<string, string>;
    };
    const required = [
      ...Object.values(manifest.exports).flatMap((target) =>
        typeof target === 'string' ? [target] : [target.types!, target.default!],
      ),
      ...Object.values(manifest.bin),
      './dist/cli/main.js',
      './dist/generated/modules/errors.js',
      './dist/generated/modules/auth/routes.js',
      './dist/generated/modules/auth/validators.js',
      './dist/generated/modules/auth/types.d.ts',
      './spec/errors.yaml',
      './spec/modules/auth.yaml',
      './spec/svc.schema.json',
      './spec/catalog.schema.json',
      './templates/generated/routes.ts.hbs',
      './templates/init/package.json.hbs',
      './templates/init/gitignore',
    ].map((path) => path.replace(/^\.\//, ''));
    for (const path of required) expect(packed, path).toContain(path);

    const allowed =
      /^(?:package\.json|README\.md|LICENSE|bin\/svc\.js|dist\/.+\.(?:js|d\.ts)|spec\/[^/]+\.(?:json|yaml)|spec\/modules\/[^/]+\.yaml|templates\/.+)$/;
    expect(packed.filter((path) => !allowed.test(path))).toEqual([]);
    // Only svckit's own code is compiled: not the reference service, its generated/*.ts, tests or benchmarks.
    const foreign = /^dist\/(?:src|test|bench)\/|^dist\/generated\/[^/]+$|^dist\/[^/]+$/;
    expect(packed.filter((path) => foreign.test(path))).toEqual([]);
  });
});

describe('the installed package', () => {
  test('svckit and svckit/fastify load from dist/ without the svckit-source condition', async () => {
    const script = [
      "const svckit = await import('svckit');",
      "const fastify = await import('svckit/fastify');",
      'console.log(JSON.stringify({',
      "  resolved: import.meta.resolve('svckit'),",
      '  createApp: typeof svckit.createApp,',
      '  fastifyPlugin: typeof fastify.fastifyPlugin,',
      '}));',
    ].join('\n');
    const result = await run(process.execPath, ['--input-type=module', '-e', script], consumer);
    expect(result.code, result.output).toBe(0);
    const loaded = JSON.parse(result.stdout) as Record<string, string>;
    expect(loaded.resolved).toMatch(/\/consumer\/node_modules\/svckit\/dist\/runtime\/index\.js$/);
    expect(loaded.createApp).toBe('function');
    expect(loaded.fastifyPlugin).toBe('function');
  });

  test("svc build merges the shipped auth module's routes into an application's openapi.json", async () => {
    const app = join(consumer, 'accounts');
    await mkdir(app);
    await writeFile(
      join(app, 'svc.config.yaml'),
      'svc: 1\nname: accounts\nversion: 1.0.0\nmodules:\n  auth: true\nroutes: {}\n',
    );
    const build = await run('npx', ['--no-install', 'svc', 'build', `--dir=${app}`], consumer);
    expect(build.code, build.output).toBe(0);
    const document = JSON.parse(readFileSync(join(app, 'generated', 'openapi.json'), 'utf8')) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toContain('/auth/login');
  });

  test('svc runs from dist/: --help and --version', async () => {
    expect(existsSync(join(consumer, 'node_modules', 'svckit', 'cli'))).toBe(false);
    const help = await run('npx', ['--no-install', 'svc', '--help'], consumer);
    expect(help.code, help.output).toBe(0);
    expect(help.stdout).toContain('Usage: svc <command>');
    const version = await run('npx', ['--no-install', 'svc', '--version'], consumer);
    expect(version.code, version.output).toBe(0);
    expect(version.stdout.trim()).toBe('0.1.0');
  });

  test('svc init makes an app that builds and serves', async () => {
    const init = await run('npx', ['--no-install', 'svc', 'init', 'app'], consumer);
    expect(init.code, init.output).toBe(0);
    const app = join(consumer, 'app');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // An installed svckit pins its own version. That version is not on the registry: the tarball installed in
    // consumer/ (with the app's dev dependencies) serves the app from the parent directory.
    expect(pkg.dependencies.svckit).toBe('^0.1.0');

    const build = await run('npx', ['--no-install', 'svc', 'build'], app);
    expect(build.code, build.output).toBe(0);
    expect(existsSync(join(app, 'generated', 'routes.ts'))).toBe(true);

    // The app's own test command type-checks against the published .d.ts files, then runs its tests.
    const tested = await run('npm', ['test'], app);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toMatch(/pass 3/);

    const service = await startProcess('npx', ['--no-install', 'svc', 'start'], app, { env: outsideEnv() });
    try {
      expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${service.url}/tasks`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      await service.stop();
    }
  }, 90_000);
});
