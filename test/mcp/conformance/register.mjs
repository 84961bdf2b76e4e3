// Preload for the conformance runner on Node 20: `node --import ./register.mjs <runner>/dist/index.js ...`.
// The runner's dist does `import { globSync } from 'fs'`, an export that only exists in Node >= 22, so on
// Node 20 the module fails to link before any scenario runs. The resolve hook in node20-fs-hooks.mjs
// swaps in node20-fs-shim.mjs for the runner's `fs` imports only; every other importer sees the real fs.
import * as fs from 'node:fs';
import { register } from 'node:module';

// On a Node that already has fs.globSync, the real implementation wins and no hook is installed.
if (typeof fs.globSync !== 'function') {
  register('./node20-fs-hooks.mjs', import.meta.url);
}
