// Test helpers: write inline YAML to a temp dir, load it, and get the problems the loader reports.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadModuleSpec, loadSpec, SpecError, type SpecIR, type SpecProblem } from 'svckit/spec';

export const HEAD = 'svc: 1\nname: test-api\nversion: "1.0.0"\n';

let dir: string | undefined;
function tempDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'svc-spec-'));
  return dir;
}

let counter = 0;
export function writeSpec(text: string, name = `spec-${++counter}.yaml`): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

export function load(text: string, env: Record<string, string | undefined> = {}): Promise<SpecIR> {
  return loadSpec(writeSpec(text), { env });
}

export function loadModule(text: string): Promise<SpecIR> {
  return loadModuleSpec(writeSpec(text), { env: {} });
}

/** The problems of a spec that must fail to load, plus the file it was written to. */
export async function problemsOf(
  text: string,
  env: Record<string, string | undefined> = {},
  kind: 'app' | 'module' = 'app',
): Promise<{ file: string; problems: SpecProblem[]; error: SpecError }> {
  const file = writeSpec(text);
  try {
    await (kind === 'app' ? loadSpec(file, { env }) : loadModuleSpec(file, { env }));
  } catch (error) {
    if (error instanceof SpecError) return { file, problems: error.problems, error };
    throw error;
  }
  throw new Error('expected the spec to fail to load');
}

export interface Expected {
  line: number;
  column: number;
  message: string | RegExp;
  hint?: string | RegExp;
  path?: string;
}

/** Asserts that exactly one problem sits at line:column and that it says what is expected. */
export function expectProblem(
  result: { file: string; problems: SpecProblem[] },
  expected: Expected,
): SpecProblem {
  const here = result.problems.filter((p) => p.line === expected.line && p.column === expected.column);
  expect(here, `problems: ${JSON.stringify(result.problems, null, 1)}`).toHaveLength(1);
  const problem = here[0]!;
  expect(problem.file).toBe(result.file);
  if (typeof expected.message === 'string') expect(problem.message).toBe(expected.message);
  else expect(problem.message).toMatch(expected.message);
  if (expected.hint !== undefined) {
    if (typeof expected.hint === 'string') expect(problem.hint).toBe(expected.hint);
    else expect(problem.hint).toMatch(expected.hint);
  }
  if (expected.path !== undefined) expect(problem.path).toBe(expected.path);
  return problem;
}

/** A one-problem spec: asserts the problem list has exactly this one. */
export async function expectOnly(
  text: string,
  expected: Expected,
  env: Record<string, string | undefined> = {},
): Promise<SpecProblem> {
  const result = await problemsOf(text, env);
  expect(result.problems, JSON.stringify(result.problems, null, 1)).toHaveLength(1);
  return expectProblem(result, expected);
}

/** A minimal valid route block to append specs to. */
export function route(id: string, lines: string): string {
  return `  ${id}:\n${lines
    .trim()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')}\n`;
}
