// svc generate:docs [--out=<path>|--stdout]: the OpenAPI document, without a full build.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { openApiText } from '../../generator/index.js';
import { loadSpec } from '../../spec/index.js';
import { parseCommand } from '../args.js';
import { projectDir, specFile } from '../project.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE, UsageError } from '../usage.js';

export async function generateDocsCommand(args: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_USAGE['generate:docs'] ?? '';
  const { values } = parseCommand(
    'generate:docs',
    args,
    { out: { type: 'string' }, stdout: { type: 'boolean' } },
    { min: 0, max: 0 },
  );
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  if (values.out !== undefined && values.stdout)
    throw new UsageError('Choose either --out or --stdout.', usage);
  if (values.out === '') throw new UsageError('--out needs a path.', usage);
  const dir = projectDir(values.dir, io.cwd);
  const text = await openApiText(await loadSpec(specFile(dir), { env: io.env }));
  if (values.stdout) {
    io.stdout.write(text);
    return 0;
  }
  // --out is relative to where the command runs, like any CLI path; the default goes to the project.
  const target = typeof values.out === 'string' ? resolve(io.cwd, values.out) : join(dir, 'openapi.json');
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, text);
  io.stdout.write(`svc generate:docs: wrote ${target}\n`);
  return 0;
}
