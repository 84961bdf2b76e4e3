// Reading a spec file into a located tree, reporting an unreadable file like any other problem.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Env } from '../../shared/env-template.js';
import type { Problems } from './problems.js';
import { parseYaml, type Node } from './yaml-tree.js';

/** `given`: the file's text when the caller has it (an edit not yet saved), instead of reading the file. */
export async function readSpecFile(
  file: string,
  env: Env,
  problems: Problems,
  given?: string,
): Promise<{ file: string; root: Node | undefined }> {
  const absolute = resolve(file);
  let text: string;
  try {
    text = given ?? (await readFile(absolute, 'utf8'));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    problems.add(
      { file: absolute, line: 1, column: 1 },
      '',
      `cannot read the spec: ${reason}`,
      'check the path, or create the file with svc init',
    );
    return { file: absolute, root: undefined };
  }
  return { file: absolute, root: parseYaml(absolute, text, env, problems) };
}
