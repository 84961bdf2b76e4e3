// svc make:<part> <Name>: the scaffolding commands, with the project's defaults from package.json
// ("svc": { "make": { "prisma": true, "prismaClient": { "import": "…", "type": "…" } } }).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generatorCommands, type GeneratorDefaults } from '../../make/index.js';
import type { CliIo } from '../io.js';
import { projectDir } from '../project.js';

/** `svc.make` of the project's package.json, or no defaults. */
function projectDefaults(dir: string): GeneratorDefaults {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return {};
  const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { svc?: { make?: GeneratorDefaults } };
  return parsed.svc?.make ?? {};
}

/** The directory --dir names, read leniently: the command itself checks its whole command line. */
function dirOf(args: string[], cwd: string): string {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  return projectDir(typeof values.dir === 'string' ? values.dir : undefined, cwd);
}

export function makeCommand(name: string): (args: string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    let defaults: GeneratorDefaults;
    try {
      defaults = projectDefaults(dirOf(args, io.cwd));
    } catch (error) {
      io.stderr.write(
        `svc ${name}: package.json: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 1;
    }
    let commands;
    try {
      commands = generatorCommands(defaults);
    } catch (error) {
      io.stderr.write(
        `svc ${name}: package.json "svc.make": ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 1;
    }
    return commands[name]!(args, io);
  };
}
