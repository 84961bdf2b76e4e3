// `svc build` is deterministic, skips unchanged files, and `--check` names every stale file.
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runSvc, runSvcBinary, tempProject, type SvcRun } from './run-svc.js';

async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(join(dir, 'generated'))).sort()) {
    files.set(name, await readFile(join(dir, 'generated', name), 'utf8'));
  }
  return files;
}

async function referenceProject(): Promise<string> {
  return tempProject({ 'svc.config.yaml': await readFile(join(REPO_ROOT, 'svc.config.yaml'), 'utf8') });
}

/** The reference project, built once by the real binary; tests that change it work on a copy. */
let built: string;
let builtRun: SvcRun;

async function copyOfBuilt(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  await cp(built, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  built = await referenceProject();
  builtRun = await runSvcBinary(['build', `--dir=${built}`]);
}, 60_000);

describe('svc build', () => {
  test('the binary emits every generated file, each with a do-not-edit header, and --check agrees', async () => {
    expect(builtRun.code, builtRun.stderr).toBe(0);
    const files = await snapshot(built);
    for (const name of [
      'types.ts',
      'validators.js',
      'validators.d.ts',
      'errors.ts',
      'routes.ts',
      'config.ts',
      'client.ts',
      'openapi.json',
      'openapi.d.ts',
      'mcp-tools.json',
    ]) {
      expect(files.has(name), name).toBe(true);
      expect(files.get(name)).toMatch(/[Gg]enerated by svc build/);
    }
    expect((await runSvc(['build', '--check', `--dir=${built}`])).code).toBe(0);
  });

  test('a second build is byte-identical and writes nothing', async () => {
    const dir = await copyOfBuilt();
    const first = await snapshot(dir);
    const again = await runSvc(['build', `--dir=${dir}`]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 written/);
    expect(await snapshot(dir)).toEqual(first);
  });

  test('a build from a clean output directory reproduces the same bytes', async () => {
    const clean = await referenceProject();
    expect((await runSvc(['build', `--dir=${clean}`])).code).toBe(0);
    expect(await snapshot(clean)).toEqual(await snapshot(built));
  });

  test('--check fails naming the stale files after the spec changes, and passes after a build', async () => {
    const dir = await copyOfBuilt();
    const spec = await readFile(join(dir, 'svc.config.yaml'), 'utf8');
    expect(spec).toContain('summary: Read a note,');
    await writeFile(
      join(dir, 'svc.config.yaml'),
      spec.replace('summary: Read a note,', 'summary: Read a single note,'),
    );
    const stale = await runSvc(['build', '--check', `--dir=${dir}`]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('generated/openapi.json');
    expect(stale.stderr).toContain('generated/routes.ts');
    expect(stale.stderr).toContain('generated/client.ts');
    // openapi.d.ts carries the summary as a doc comment.
    expect(stale.stderr).toContain('generated/openapi.d.ts');

    expect((await runSvc(['build', `--dir=${dir}`])).code).toBe(0);
    expect((await runSvc(['build', '--check', `--dir=${dir}`])).code).toBe(0);
  });

  test('--check catches a hand-edited generated file', async () => {
    const dir = await copyOfBuilt();
    const path = join(dir, 'generated', 'errors.ts');
    await writeFile(path, (await readFile(path, 'utf8')).replace('Note not found.', 'Nope.'));
    const stale = await runSvc(['build', '--check', `--dir=${dir}`]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('generated/errors.ts');
    expect((await runSvc(['build', `--dir=${dir}`])).stdout).toContain('generated/errors.ts');
  });
});

describe('svc generate:docs', () => {
  test('writes openapi.json by default', async () => {
    const dir = await referenceProject();
    const result = await runSvc(['generate:docs', `--dir=${dir}`]);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(await readFile(join(dir, 'openapi.json'), 'utf8')) as { openapi: string };
    expect(document.openapi).toBe('3.1.0');
  });

  test('--out chooses the file and --stdout prints it', async () => {
    const dir = await referenceProject();
    expect((await runSvc(['generate:docs', `--dir=${dir}`, '--out=docs/api.json'], { cwd: dir })).code).toBe(
      0,
    );
    const written = await readFile(join(dir, 'docs', 'api.json'), 'utf8');
    // The binary: the whole document reaches stdout.
    const printed = await runSvcBinary(['generate:docs', `--dir=${dir}`, '--stdout']);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(written));
    expect(JSON.parse(printed.stdout).paths['/notes/{id}']).toBeDefined();
  });
});

describe('svc build with modules.auth', () => {
  const spec = `svc: 1
name: accounts
version: 1.0.0
modules:
  auth: { routes: { register: false } }
routes:
  ping:
    method: GET
    path: /ping
    response: { 200: { type: string } }
    meta: { auth: true }
`;

  test("merges the module's routes into openapi.json and client.ts, and generate:docs agrees", async () => {
    const dir = await tempProject({ 'svc.config.yaml': spec });
    const result = await runSvc(['build', `--dir=${dir}`]);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(await readFile(join(dir, 'generated', 'openapi.json'), 'utf8')) as {
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(document.paths)).toContain('/auth/login');
    expect(Object.keys(document.paths)).not.toContain('/auth/register');
    expect(Object.keys(document.components.securitySchemes)).toEqual([
      'bearerAuth',
      'sessionCookie',
      'sessionHeader',
    ]);
    expect(await readFile(join(dir, 'generated', 'client.ts'), 'utf8')).toContain('login(input: LoginInput)');
    expect(await readFile(join(dir, 'generated', 'routes.ts'), 'utf8')).not.toContain('login');
    const docs = await runSvc(['generate:docs', `--dir=${dir}`, '--stdout']);
    expect(docs.stdout).toBe(await readFile(join(dir, 'generated', 'openapi.json'), 'utf8'));
  });

  test('a route clashing with a module route exits 1, naming both files and lines', async () => {
    const clash = spec.replace(
      '  ping:\n    method: GET\n    path: /ping',
      '  ping:\n    method: GET\n    path: /auth/me',
    );
    const dir = await tempProject({ 'svc.config.yaml': clash });
    const result = await runSvc(['build', `--dir=${dir}`], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /svc\.config\.yaml:9:11 error: GET \/auth\/me of 'ping' clashes with route 'me' of the auth module \(GET \/auth\/me, \S*spec\/modules\/auth\.yaml:\d+:3\)/,
    );
  });
});
