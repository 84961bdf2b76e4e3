// A lone artifact (`svc make:plugin BlogPost`) may import module files that do not exist yet. It is written
// all the same, with a warning naming them, so the next command can fill the gap.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathOf, type GeneratorKind } from './generate.js';
import { names } from './names.js';

/** The project files the kind's file imports. */
export function expectedSiblings(
  kind: GeneratorKind,
  name: string,
  options: { crud?: boolean } = {},
): string[] {
  const n = names(name);
  switch (kind) {
    case 'schema':
      return [];
    case 'repository':
      return [pathOf('schema', n)];
    case 'service':
      return options.crud === false ? [] : [pathOf('repository', n), pathOf('schema', n)];
    case 'plugin':
      return options.crud === false
        ? [pathOf('service', n)]
        : [pathOf('repository', n), pathOf('service', n)];
    case 'routes':
      return [pathOf('service', n)];
    case 'test':
      return ['src/app.ts'];
  }
}

/** The expected siblings that do not exist under `baseDir`. */
export function missingSiblings(
  kind: GeneratorKind,
  name: string,
  options: { baseDir?: string; crud?: boolean } = {},
): string[] {
  const baseDir = options.baseDir ?? process.cwd();
  return expectedSiblings(kind, name, options).filter((path) => !existsSync(join(baseDir, path)));
}

/** The warning for missing siblings, or undefined when there are none. */
export function missingSiblingsWarning(
  kind: GeneratorKind,
  name: string,
  missing: readonly string[],
): string | undefined {
  if (missing.length === 0) return undefined;
  const n = names(name);
  const file = pathOf(kind, n);
  // src/modules/<name>/<name>.<part>.ts is written by svc make:<part>.
  const commands = missing
    .map((path) => /\.(\w+)\.ts$/.exec(path)?.[1])
    .filter((part): part is string => part !== undefined && part !== 'test')
    .map((part) => `svc make:${part} ${n.pascal}`);
  const hint =
    commands.length > 0 ? `; write ${missing.length === 1 ? 'it' : 'them'} with ${commands.join(', ')}` : '';
  return `Warning: ${file} imports ${missing.length === 1 ? 'a file that does' : 'files that do'} not exist yet: ${missing.join(', ')}. It was written all the same${hint}.`;
}

/** True when the repository and schema of `name` exist: `make:service` then writes the CRUD service. */
export function serviceSiblingsExist(name: string, options: { baseDir?: string } = {}): boolean {
  return missingSiblings('service', name, { ...options, crud: true }).length === 0;
}
