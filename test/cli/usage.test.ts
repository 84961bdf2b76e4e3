import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runSvc, runSvcBinary } from './run-svc.js';

const SVCKIT_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('svc usage', () => {
  test('--help prints every command and exits 0', async () => {
    const result = await runSvc(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['build', 'dev', 'start', 'test', 'generate:docs', 'init', 'db:migrate']) {
      expect(result.stdout).toContain(command);
    }
  });

  test('--version prints the version in svckit package.json', async () => {
    const result = await runSvc(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${SVCKIT_VERSION}\n`);
  });

  test('no command prints usage and exits 1', async () => {
    const result = await runSvc([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: svc <command>');
  });

  // The binary: its exit code and stderr are the ones run() returned and wrote.
  test('an unknown command prints usage and exits 1', async () => {
    const result = await runSvcBinary(['bulid']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'bulid'");
    expect(result.stderr).toContain('Usage: svc <command>');
  });

  test('an unknown flag prints the command usage and exits 1', async () => {
    const result = await runSvc(['build', '--chek']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--chek');
    expect(result.stderr).toContain('Usage: svc build');
  });

  test('init without a directory prints usage and exits 1', async () => {
    const result = await runSvc(['init']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: svc init <dir>');
  });

  test('generate:docs refuses --out together with --stdout', async () => {
    const result = await runSvc(['generate:docs', '--out=x.json', '--stdout']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: svc generate:docs');
  });

  test('a command --help exits 0 with its usage', async () => {
    const result = await runSvc(['build', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: svc build');
  });
});
