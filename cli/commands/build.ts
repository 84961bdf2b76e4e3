// svc build [--check]: compile the spec into generated/; in the svckit checkout also its built-in modules.
import { relative } from 'node:path';
import { build, buildModules, type BuildResult } from '../../generator/index.js';
import { parseCommand } from '../args.js';
import { SVCKIT_FROM_SOURCE, SVCKIT_ROOT, projectDir, specFile } from '../project.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';

export async function buildCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand('build', args, { check: { type: 'boolean' } }, { min: 0, max: 0 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE.build}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const check = values.check === true;
  const results: BuildResult[] = [await build({ specFile: specFile(dir), check, env: io.env })];
  // The svckit package compiles its own module specs too, so one `svc build --check` covers both.
  if (SVCKIT_FROM_SOURCE && dir === SVCKIT_ROOT) results.push(await buildModules({ check }));

  const files = results.flatMap((result) => result.files);
  const shown = (path: string) => relative(dir, path) || path;
  if (check) {
    const stale = files.filter((file) => file.status === 'stale');
    if (stale.length > 0) {
      io.stderr.write(
        `svc build --check: ${stale.length} generated file${stale.length === 1 ? ' is' : 's are'} stale or missing:\n` +
          stale.map((file) => `  ${shown(file.path)}\n`).join('') +
          'Run `svc build` and commit the result.\n',
      );
      return 1;
    }
    io.stdout.write(`svc build --check: ${files.length} generated files are up to date.\n`);
    return 0;
  }
  const written = files.filter((file) => file.status === 'written');
  const ms = results.reduce((sum, result) => sum + result.ms, 0);
  const cached = results.every((result) => result.cached);
  for (const file of written) io.stdout.write(`  wrote ${shown(file.path)}\n`);
  io.stdout.write(
    `svc build: ${files.length} files, ${written.length} written${cached ? ' (spec unchanged)' : ''} in ${Math.round(ms)} ms\n`,
  );
  return 0;
}
