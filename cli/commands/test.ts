// svc test [files...]: node's test runner over test/**/*.test.ts with TypeScript support, NODE_ENV=test and
// fresh data for each run (service-env.ts).
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommand } from '../args.js';
import { runToExit, spawnTypeScript } from '../child.js';
import { projectDir } from '../project.js';
import { testEnv } from '../service-env.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';

export async function testCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand('test', args, {}, { min: 0, max: Infinity });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE.test}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const files = positionals.length > 0 ? positionals : findTests(join(dir, 'test'));
  if (files.length === 0) {
    io.stderr.write('svc test: no test files found under test/ (files end in .test.ts).\n');
    return 1;
  }
  return runToExit(spawnTypeScript(['--test', ...files], dir, { ...io, env: testEnv(io.env) }), io);
}

function findTests(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !file.split(/[\\/]/).includes('node_modules'))
    .sort()
    .map((file) => join(root, file));
}
