#!/usr/bin/env node
// Entry of the `svc` command. In a source checkout (cli/main.ts present) it runs the TypeScript sources
// through tsx and resolves `svckit` to those sources; an installed package runs its compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(root, 'cli', 'main.ts');
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(pathToFileURL(source).href);
  await main(process.argv.slice(2));
} else {
  const { main } = await import(pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href);
  await main(process.argv.slice(2));
}
