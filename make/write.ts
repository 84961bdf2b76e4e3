// Writing generated files: every conflict is found before the first byte is written, so a refused run
// changes nothing; with `force`, existing files are overwritten.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyWrites, type FileWrite } from './apply.js';
import { formatForProject } from './format.js';
import type { GeneratedFile } from './generate.js';

/** Files (or spec entries) that exist already; `paths` lists every one, project-relative. */
export class FileExistsError extends Error {
  readonly code = 'MAKE_FILE_EXISTS';

  constructor(readonly paths: readonly string[]) {
    super(
      `Nothing was written: ${paths.length === 1 ? 'this exists' : 'these exist'} already:\n${paths.map((path) => `  ${path}`).join('\n')}\nRun again with --force to overwrite.`,
    );
    this.name = 'FileExistsError';
  }
}

/** The paths of `files` that exist under `baseDir`. */
export function existingPaths(files: readonly GeneratedFile[], baseDir: string): string[] {
  return files.map((file) => file.path).filter((path) => existsSync(join(baseDir, path)));
}

/**
 * `files` as the writes `writeGenerated` makes: absolute paths, TypeScript formatted with the project's
 * prettier config when it has one. Nothing is written.
 */
export async function prepareGenerated(
  files: readonly GeneratedFile[],
  baseDir: string,
): Promise<FileWrite[]> {
  return Promise.all(
    files.map(async (file) => {
      const target = join(baseDir, file.path);
      const content = file.path.endsWith('.ts') ? await formatForProject(target, file.content) : file.content;
      return { target, content };
    }),
  );
}

/**
 * Writes `files` under `baseDir` (default the current directory) and answers their paths, sorted. Throws
 * FileExistsError naming every existing one, before writing anything, unless `force`. TypeScript files are
 * formatted with the project's prettier config when it has one. A write that fails undoes the earlier ones.
 */
export async function writeGenerated(
  files: readonly GeneratedFile[],
  options: { baseDir?: string; force?: boolean } = {},
): Promise<string[]> {
  const baseDir = options.baseDir ?? process.cwd();
  if (!options.force) {
    const existing = existingPaths(files, baseDir);
    if (existing.length > 0) throw new FileExistsError(existing);
  }
  await applyWrites(await prepareGenerated(files, baseDir));
  return files.map((file) => file.path).sort();
}
