// svc init <dir>: a new application that builds, starts and passes its own test with two commands.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import Handlebars from 'handlebars';
import { build } from '../../generator/index.js';
import { packageVersion } from '../../shared/package-root.js';
import { parseCommand } from '../args.js';
import { SVCKIT_FROM_SOURCE, SVCKIT_ROOT, specFile } from '../project.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE, UsageError } from '../usage.js';

const TEMPLATE_DIR = join(SVCKIT_ROOT, 'templates', 'init');
/** Template files whose name differs from the file they become (npm drops dotfiles named .gitignore). */
const RENAMES: Record<string, string> = { gitignore: '.gitignore' };

export async function initCommand(args: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_USAGE.init ?? '';
  const { values, positionals } = parseCommand('init', args, {}, { min: 1, max: 1 });
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  const target = resolve(io.cwd, positionals[0]!);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new UsageError(`svc init: ${target} already exists and is not empty.`, usage);
  }
  const name = packageName(basename(target));
  // An app linked to a checkout type-checks against svckit's TypeScript sources (there is no dist/ there).
  const data = {
    name,
    title: titleOf(name),
    svckitVersion: svckitDependency(target),
    fromSource: SVCKIT_FROM_SOURCE,
  };

  for (const file of templateFiles(TEMPLATE_DIR)) {
    const source = readFileSync(join(TEMPLATE_DIR, file), 'utf8');
    const isTemplate = file.endsWith('.hbs');
    const output = isTemplate ? Handlebars.compile(source, { noEscape: true, strict: true })(data) : source;
    const relativePath = (isTemplate ? file.slice(0, -'.hbs'.length) : file)
      .split('/')
      .map((part) => RENAMES[part] ?? part)
      .join('/');
    const path = join(target, relativePath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, output);
  }
  io.stdout.write(`svc init: created ${name} in ${target}\n`);
  await build({ specFile: specFile(target), env: io.env });
  const shown = relative(io.cwd, target) || '.';
  io.stdout.write(
    `svc init: generated/ is built.\n\nNext:\n  cd ${shown}\n  npm install && npm start   # http://127.0.0.1:3000\n  npm test\n`,
  );
  return 0;
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** A valid spec and npm name from the directory name: lower case, letters, digits and dashes. */
function packageName(dir: string): string {
  const name = dir
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '');
  return name || 'my-service';
}

function titleOf(name: string): string {
  return name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/**
 * A checkout links to itself (so the new app runs this very code) by a path relative to the app, which holds on
 * any machine where the two keep their places (`npm pack` in the checkout makes a tarball that needs none); an
 * installed svckit pins its version.
 */
function svckitDependency(app: string): string {
  if (SVCKIT_FROM_SOURCE) return `file:${relative(app, SVCKIT_ROOT).split(sep).join('/') || '.'}`;
  return `^${packageVersion()}`;
}
