// The layering lint (lint/layers.js, zones in eslint.config.js) as `npm run lint` applies it: wrong-way
// imports in each layer are errors, whatever form the import takes, and the allowed directions are not.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The layering messages for `code` as if it were the file at `path` (repository-relative). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'layers/imports')
    .map((message) => message.message);
}

describe('layers import one way', () => {
  it.each([
    ['runtime/app/probe.ts', "import { mcpPlugin } from '../mcp/index.js';\nvoid mcpPlugin;", 'runtime/mcp'],
    [
      'runtime/app/probe.ts',
      "export async function load() { return import('../mcp/server/stdio.js'); }",
      'runtime/mcp',
    ],
    [
      'runtime/http/probe.ts',
      "import type { Auth } from '../auth/index.js';\nexport type A = Auth;",
      'runtime/auth',
    ],
    ['runtime/http/probe.ts', "export { edgePlugins } from '../edge/index.js';", 'runtime/edge'],
    ['runtime/config/probe.ts', "export * from '../stores/index.js';", 'runtime/stores'],
    ['runtime/core.ts', "export * from './idempotency/index.js';", 'runtime/idempotency'],
    ['runtime/stores/probe.ts', "import { loadSpec } from '../../spec/index.js';\nvoid loadSpec;", 'spec'],
    ['runtime/auth/probe.ts', "import * as generator from 'svckit/generator';\nvoid generator;", 'generator'],
    [
      'runtime/edge/probe.ts',
      "import { routes } from '../../generated/routes.js';\nvoid routes;",
      'generated',
    ],
    ['runtime/mcp/probe.ts', "export type T = import('../../cli/main.js').Main;", 'cli'],
    ['spec/probe.ts', "import { createApp } from '../runtime/index.js';\nvoid createApp;", 'runtime'],
    [
      'spec/loader/probe.ts',
      "import * as generator from '../../generator/index.js';\nvoid generator;",
      'generator',
    ],
    ['generator/probe.ts', "import { createApp } from 'svckit';\nvoid createApp;", 'runtime'],
    ['shared/probe.ts', "import * as spec from '../spec/index.js';\nvoid spec;", 'spec'],
    // The root entry re-exports every feature, however it is named.
    [
      'runtime/http/probe.ts',
      "import { mcpPlugin } from '../index.js';\nvoid mcpPlugin;",
      'runtime/index.ts',
    ],
    ['runtime/app/probe.ts', "import { mcpPlugin } from 'svckit';\nvoid mcpPlugin;", 'runtime/index.ts'],
    [
      'runtime/app/probe.ts',
      'export function load(name: string) { return import(`../mcp/${name}.js`); }',
      'runtime/mcp',
    ],
    [
      'runtime/config/probe.ts',
      "import { createRequire } from 'node:module';\nexport const edge: unknown = createRequire(import.meta.url)('../edge/index.js');",
      'runtime/edge',
    ],
    [
      'runtime/app/probe.ts',
      "import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const mcp: unknown = load('../mcp/index.js');",
      'runtime/mcp',
    ],
    ['runtime/log/probe.ts', "export { mcpPlugin } from '../mcp/index.js';", 'runtime/mcp'],
  ])('%s: refuses %j (imports %s)', async (path, code, forbidden) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`must not import ${forbidden}:`);
  });

  it.each([
    ['runtime/auth/probe.ts', "import type { App } from '../app/app.js';\nexport type A = App;"],
    ['runtime/mcp/probe.ts', "import { errors } from '../../generated/modules/errors.js';\nvoid errors;"],
    [
      'runtime/app/probe.ts',
      "import { isProductionEnv } from '../config/node-env.js';\nvoid isProductionEnv;",
    ],
    ['runtime/core.ts', "export { adapterPlugin } from './adapters/by-name.js';"],
    ['generator/probe.ts', "import * as spec from '../spec/index.js';\nvoid spec;"],
    ['spec/probe.ts', "import { parseDuration } from '../shared/duration.js';\nvoid parseDuration;"],
    ['cli/probe.ts', "import * as generator from '../generator/index.js';\nvoid generator;"],
    ['runtime/app/probe.ts', 'export function load(name: string) { return import(`./${name}.js`); }'],
    ['runtime/log/probe.ts', "import { errors } from '../../generated/modules/errors.js';\nvoid errors;"],
  ])('%s: allows %j', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });
});
