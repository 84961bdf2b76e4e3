// The built-in catalog loader, module-spec mistakes, and how problems are printed.
import { describe, expect, it } from 'vitest';
import { formatProblems, loadCatalog, SpecError, type SpecProblem } from 'svckit/spec';
import { expectProblem, problemsOf, writeSpec } from './helpers.js';

describe('loadCatalog', () => {
  it('loads the built-in catalog in declaration order', async () => {
    const catalog = await loadCatalog();
    expect(catalog[0]).toMatchObject({
      code: 'HTTP_VALIDATION',
      status: 400,
      module: 'http',
      message: 'Request validation failed.',
    });
    expect(new Set(catalog.map((e) => e.code)).size).toBe(catalog.length);
    expect(catalog.every((e) => e.loc?.file.endsWith('spec/errors.yaml'))).toBe(true);
  });

  it('reports a broken catalog with positions', async () => {
    const file = writeSpec(
      'svc: 1\ncatalog: test\nerrors:\n  OOPS: { status: 200, message: x, module: http }\n  MISSING: { status: boot, message: y }\n',
    );
    const error = await loadCatalog(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecError);
    const problems = (error as SpecError).problems;
    expectProblem(
      { file, problems },
      {
        line: 4,
        column: 19,
        message: 'errors.OOPS.status: expected an integer between 400 and 599 but got 200',
        hint: 'write an integer between 400 and 599',
      },
    );
    expectProblem(
      { file, problems },
      {
        line: 5,
        column: 12,
        message: "missing required key 'module' in errors.MISSING",
        hint: 'add module: <a module name>',
      },
    );
  });
});

describe('module specs', () => {
  it('wants module on every error entry, and refuses app-only keys', async () => {
    const result = await problemsOf(
      'svc: 1\nmodule: extra\nversion: "1"\nserver: {}\nerrors:\n  EXTRA_FAILED: { status: 500, message: Failed. }\n',
      {},
      'module',
    );
    expectProblem(result, { line: 4, column: 1, message: "unknown key 'server' at the top level" });
    expectProblem(result, {
      line: 6,
      column: 17,
      message: "missing required key 'module' in errors.EXTRA_FAILED",
    });
  });
});

describe('formatProblems', () => {
  const problem = (
    file: string,
    line: number,
    column: number,
    message: string,
    hint?: string,
  ): SpecProblem => ({
    file,
    line,
    column,
    message,
    path: '',
    ...(hint && { hint }),
  });

  it('prints one block per problem, sorted, with files relative to cwd', () => {
    const text = formatProblems(
      [
        problem('/p/svc.config.yaml', 12, 7, 'second', 'do this'),
        problem('/p/a.yaml', 3, 1, 'first'),
        problem('/p/svc.config.yaml', 2, 9, 'earlier'),
      ],
      { cwd: '/p' },
    );
    expect(text).toBe(
      [
        'a.yaml:3:1 error: first',
        'svc.config.yaml:2:9 error: earlier',
        'svc.config.yaml:12:7 error: second\n  hint: do this',
      ].join('\n'),
    );
  });

  it('keeps absolute paths for files outside cwd', () => {
    expect(formatProblems([problem('/elsewhere/x.yaml', 1, 1, 'm')], { cwd: '/p' })).toBe(
      '/elsewhere/x.yaml:1:1 error: m',
    );
  });

  it('is the message of SpecError', () => {
    const error = new SpecError([problem(`${process.cwd()}/svc.config.yaml`, 1, 2, 'm', 'h')]);
    expect(error.message).toBe('svc.config.yaml:1:2 error: m\n  hint: h');
    expect(error.name).toBe('SpecError');
  });
});

describe('missing file', () => {
  it('is a problem, not a crash', async () => {
    const file = writeSpec('').replace(/[^/]+$/, 'does-not-exist.yaml');
    const { loadSpec } = await import('svckit/spec');
    const error = await loadSpec(file, { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).problems).toEqual([
      {
        file,
        line: 1,
        column: 1,
        message: 'cannot read the spec: file not found',
        hint: 'check the path, or create the file with svc init',
        path: '',
      },
    ]);
  });
});
