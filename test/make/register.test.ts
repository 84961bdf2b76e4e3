// `svc make:resource` wiring a module into src/app.ts: the import, the handlers spread and the plugin, in the
// shapes apps write their factories in; and the files it leaves alone, byte for byte.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALREADY_REGISTERED,
  APP_NOT_FOUND,
  UNSUPPORTED_APP,
  alreadyDeclared,
  alreadyUsed,
  planAppRegistration,
  registerResourceInApp,
} from '../../make/register.js';
import { FormatPool } from '../../generator/format-pool.js';
import { TS_PARSER } from '../../generator/format.js';
import { REPO_ROOT } from '../generator/project.js';
import { appTsconfig, typeCheckProject } from '../generator/ts-compile.js';

const INIT_APP = readFileSync(join(REPO_ROOT, 'templates/init/src/app.ts'), 'utf8');

const REFERENCE_SHAPE = `import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { SqlNoteStore } from './modules/notes/notes.sql-store.js';

export const handlers: ServiceOptions['handlers'] = ({ stores }) =>
  createNoteHandlers(new SqlNoteStore(stores.sql));

export const plugins: ServiceOptions['plugins'] = () => [];

export function buildApp(options: Omit<ServiceOptions, 'handlers' | 'plugins'> = {}): Promise<App> {
  return createService({ handlers, plugins, ...options });
}
`;

const BLOCK_BODIES = `import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

export const handlers: ServiceOptions['handlers'] = function (context) {
  const tasks = createTaskHandlers();
  return { ...tasks };
};

export const plugins: ServiceOptions['plugins'] = async ({ config }) => {
  const name = config.name;
  return [{ name }];
};

export function buildApp(): Promise<App> {
  return createService({ handlers, plugins });
}
`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway app folder holding `files` (relative paths). */
function appFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-register-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const appOf = (dir: string) => readFileSync(join(dir, 'src/app.ts'), 'utf8');

describe('registerResourceInApp', () => {
  it("wires a resource into the init template's app.ts", async () => {
    const dir = appFolder({ 'src/app.ts': INIT_APP });
    const registration = await registerResourceInApp('BlogPost', { baseDir: dir });
    expect(registration).toEqual({ registered: true, appPath: join(dir, 'src/app.ts') });
    expect(appOf(dir))
      .toBe(`// The application: what code adds to svc.config.yaml. Everything else (the modules under \`modules:\`, the
// stores under \`stores:\`, the adapter \`server.adapter\` names) is composed by generated/service.ts from the
// spec. \`svc make:resource <Name>\` adds its module's handlers and plugin here.
import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';
import { blogPostHandlers } from './modules/blog-post/blog-post.routes.js';
import { blogPostPlugin } from './modules/blog-post/blog-post.plugin.js';

/** One handler per route of the spec, built from the service's pieces (\`app\`, \`stores\`, \`auth\`, \`config\`). */
export const handlers: ServiceOptions['handlers'] = (service) => ({
  ...blogPostHandlers(service),
  ...createTaskHandlers(),
});

/** The app's own plugins, registered after the modules the spec enables. */
export const plugins: ServiceOptions['plugins'] = (service) => [blogPostPlugin(service)];

/** The service with these handlers and plugins; tests pass their own options (a config, a logger). */
export function buildApp(options: Omit<ServiceOptions, 'handlers' | 'plugins'> = {}): Promise<App> {
  return createService({ handlers, plugins, ...options });
}
`);
  });

  it('plans without writing', async () => {
    const dir = appFolder({ 'src/app.ts': INIT_APP });
    const plan = await planAppRegistration('BlogPost', { baseDir: dir });
    expect(plan.registered).toBe(true);
    expect(plan.text).toContain('...blogPostHandlers(service),');
    expect(appOf(dir)).toBe(INIT_APP);
  });

  it('plans the same in the format worker, which `svc make:resource` asks while it checks the spec', async () => {
    const dir = appFolder({ 'src/app.ts': INIT_APP });
    const pool = new FormatPool(TS_PARSER, true);
    try {
      // Run from the checkout's TypeScript, the worker loads the module through the loader this thread uses.
      const inWorker = await pool.runTask({
        module: new URL('../../make/register.ts', import.meta.url).href,
        name: 'planAppRegistration',
        args: ['BlogPost', { baseDir: dir }],
        loader: import.meta.resolve('tsx/esm/api'),
      });
      expect(inWorker).toEqual(await planAppRegistration('BlogPost', { baseDir: dir }));
      expect(appOf(dir)).toBe(INIT_APP);
    } finally {
      await pool.close();
    }
  });

  it('registers a resource once: the second time changes nothing', async () => {
    const dir = appFolder({ 'src/app.ts': INIT_APP });
    await registerResourceInApp('BlogPost', { baseDir: dir });
    const wired = appOf(dir);
    const again = await registerResourceInApp('blog-post', { baseDir: dir });
    expect(again).toEqual({
      registered: false,
      reason: ALREADY_REGISTERED,
      appPath: join(dir, 'src/app.ts'),
    });
    expect(appOf(dir)).toBe(wired);
  });

  it('counts a module whose own routes or plugin file app.ts imports as registered', async () => {
    const importLine = "import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';";
    const imported = INIT_APP.replace(
      importLine,
      "$&\nimport { blogPostPlugin } from './modules/blog-post/blog-post.plugin.js';",
    );
    const importedAndCalled = INIT_APP.replace(
      importLine,
      "$&\nimport { blogPostHandlers as posts } from './modules/blog-post/blog-post.routes';",
    ).replace('...createTaskHandlers(),', '...createTaskHandlers(),\n  ...posts(),');
    for (const text of [imported, importedAndCalled]) {
      const dir = appFolder({ 'src/app.ts': text });
      expect((await registerResourceInApp('BlogPost', { baseDir: dir })).reason).toBe(ALREADY_REGISTERED);
      expect(appOf(dir)).toBe(text);
    }
  });

  it.each([
    ['a top-level const', 'const blogPostPlugin = 1;', 'blogPostPlugin'],
    ['a function', 'function blogPostHandlers() {\n  return {};\n}', 'blogPostHandlers'],
    ['a class', 'class blogPostPlugin {}', 'blogPostPlugin'],
    ['an import from another module', "import { blogPostPlugin } from './legacy.js';", 'blogPostPlugin'],
    ['a renamed import', "import { plugin as blogPostHandlers } from './legacy.js';", 'blogPostHandlers'],
    ['a default import', "import blogPostPlugin from './legacy.js';", 'blogPostPlugin'],
  ])('refuses, byte for byte, an app that already declares the name as %s', async (_, line, name) => {
    const text = INIT_APP.replace(
      "import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';\n",
      `$&${line}\n`,
    );
    const dir = appFolder({ 'src/app.ts': text });
    expect(await registerResourceInApp('BlogPost', { baseDir: dir })).toEqual({
      registered: false,
      reason: alreadyDeclared(name),
      appPath: join(dir, 'src/app.ts'),
    });
    expect(alreadyDeclared(name)).toBe(`app.ts already declares ${name}`);
    expect(appOf(dir)).toBe(text);
  });

  it('refuses an app whose factory calls the name without importing it from the module', async () => {
    const text = INIT_APP.replace(
      '...createTaskHandlers(),',
      '...createTaskHandlers(),\n  ...blogPostHandlers(),',
    );
    const dir = appFolder({ 'src/app.ts': text });
    expect((await registerResourceInApp('BlogPost', { baseDir: dir })).reason).toBe(
      alreadyUsed('blogPostHandlers'),
    );
    expect(appOf(dir)).toBe(text);
  });

  it('puts the newest handlers first and appends plugins in order', async () => {
    const dir = appFolder({ 'src/app.ts': INIT_APP });
    await registerResourceInApp('BlogPost', { baseDir: dir });
    expect((await registerResourceInApp('Comment', { baseDir: dir })).registered).toBe(true);
    const app = appOf(dir);
    expect(app).toContain(`import { blogPostHandlers } from './modules/blog-post/blog-post.routes.js';
import { blogPostPlugin } from './modules/blog-post/blog-post.plugin.js';
import { commentHandlers } from './modules/comment/comment.routes.js';
import { commentPlugin } from './modules/comment/comment.plugin.js';
`);
    expect(app).toContain(`export const handlers: ServiceOptions['handlers'] = (service) => ({
  ...commentHandlers(service),
  ...blogPostHandlers(service),
  ...createTaskHandlers(),
});`);
    expect(app).toContain(`export const plugins: ServiceOptions['plugins'] = (service) => [
  blogPostPlugin(service),
  commentPlugin(service),
];`);
  });

  it('keeps destructured service pieces working and spreads a handlers call that is not an object', async () => {
    const dir = appFolder({ 'src/app.ts': REFERENCE_SHAPE });
    expect((await registerResourceInApp('Tag', { baseDir: dir })).registered).toBe(true);
    expect(appOf(dir)).toBe(`import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { SqlNoteStore } from './modules/notes/notes.sql-store.js';
import { tagHandlers } from './modules/tag/tag.routes.js';
import { tagPlugin } from './modules/tag/tag.plugin.js';

export const handlers: ServiceOptions['handlers'] = (service) => {
  const { stores } = service;
  return { ...tagHandlers(service), ...createNoteHandlers(new SqlNoteStore(stores.sql)) };
};

export const plugins: ServiceOptions['plugins'] = (service) => [tagPlugin(service)];

export function buildApp(options: Omit<ServiceOptions, 'handlers' | 'plugins'> = {}): Promise<App> {
  return createService({ handlers, plugins, ...options });
}
`);
  });

  it("edits a block body's final return and uses the parameter's own name", async () => {
    const dir = appFolder({ 'src/app.ts': BLOCK_BODIES });
    expect((await registerResourceInApp('Tag', { baseDir: dir })).registered).toBe(true);
    const app = appOf(dir);
    expect(app).toContain(`export const handlers: ServiceOptions['handlers'] = function (context) {
  const tasks = createTaskHandlers();
  return { ...tagHandlers(context), ...tasks };
};`);
    expect(app).toContain(`export const plugins: ServiceOptions['plugins'] = async (service) => {
  const { config } = service;
  const name = config.name;
  return [{ name }, tagPlugin(service)];
};`);
  });

  it('wires factories written inline in the createService call, and an array that is not a literal', async () => {
    const inline = `import { createService as compose } from '../generated/service.js';
import { basePlugins } from './plugins.js';

export const app = compose({
  handlers: ({ stores }) => ({ stores: () => stores }),
  plugins: (context) => basePlugins(context),
});
`;
    const dir = appFolder({ 'src/app.ts': inline });
    expect((await registerResourceInApp('Tag', { baseDir: dir })).registered).toBe(true);
    expect(appOf(dir)).toBe(`import { createService as compose } from '../generated/service.js';
import { basePlugins } from './plugins.js';
import { tagHandlers } from './modules/tag/tag.routes.js';
import { tagPlugin } from './modules/tag/tag.plugin.js';

export const app = compose({
  handlers: (service) => {
    const { stores } = service;
    return { ...tagHandlers(service), stores: () => stores };
  },
  plugins: (context) => [...basePlugins(context), tagPlugin(context)],
});
`);
  });

  it('awaits what an async factory returns before spreading it', async () => {
    const asyncFactories = `import { createService } from '../generated/service.js';
import { loadHandlers, loadPlugins } from './load.js';

export const app = createService({
  handlers: async () => loadHandlers(),
  plugins: async (service) => await loadPlugins(service),
});
`;
    const dir = appFolder({ 'src/app.ts': asyncFactories });
    expect((await registerResourceInApp('Tag', { baseDir: dir })).registered).toBe(true);
    // Each result is split one element per line: on one line it would be wider than any line of the file.
    expect(appOf(dir)).toContain(`export const app = createService({
  handlers: async (service) => ({
    ...tagHandlers(service),
    ...(await loadHandlers()),
  }),
  plugins: async (service) => [
    ...(await loadPlugins(service)),
    tagPlugin(service),
  ],
});
`);
  });

  it("follows the app's prettier config: double quotes stay double", async () => {
    const doubleQuoted = INIT_APP.replace(/'([^'\n]*)'(?=[;\]])/g, '"$1"');
    expect(doubleQuoted).toContain('from "../generated/service.js";');
    const dir = appFolder({ 'src/app.ts': doubleQuoted, '.prettierrc.json': '{ "printWidth": 110 }\n' });
    await registerResourceInApp('BlogPost', { baseDir: dir });
    const app = appOf(dir);
    expect(app).toContain(`import { blogPostHandlers } from "./modules/blog-post/blog-post.routes.js";
import { blogPostPlugin } from "./modules/blog-post/blog-post.plugin.js";
`);
    expect(app).toContain(
      'export const plugins: ServiceOptions["plugins"] = (service) => [blogPostPlugin(service)];',
    );
    expect(app).not.toMatch(/'[^'\n]*\.js'/);
  });

  it('keeps a CRLF app CRLF on every line, with a prettier config or without', async () => {
    for (const [text, config] of [
      [INIT_APP, {}],
      [REFERENCE_SHAPE, {}],
      [INIT_APP, { '.prettierrc.json': '{ "singleQuote": true, "printWidth": 110 }\n' }],
    ] as const) {
      const lf = appFolder({ 'src/app.ts': text, ...config });
      const crlf = appFolder({ 'src/app.ts': text.replace(/\n/g, '\r\n'), ...config });
      await registerResourceInApp('BlogPost', { baseDir: lf });
      await registerResourceInApp('BlogPost', { baseDir: crlf });
      const wired = appOf(crlf);
      expect(wired.split('\r\n').filter((line) => /[\r\n]/.test(line))).toEqual([]);
      expect(wired.endsWith('\r\n')).toBe(true);
      expect(wired.replace(/\r\n/g, '\n')).toBe(appOf(lf));
    }
  });

  it("keeps an app's own style without a prettier config: only the wiring changes", async () => {
    const handWritten = `// Written by hand: double quotes, no semicolons, four spaces.
import type { App } from "svckit/core"
import { createService, type ServiceOptions } from "../generated/service.js"
import { createTaskHandlers } from "./modules/tasks/tasks.handlers.js" // the first module

export const limits = {max: 10,min: 1}

export const handlers: ServiceOptions["handlers"] = () => ({
    ...createTaskHandlers(),
})

export const plugins: ServiceOptions["plugins"] = () => [
    { name: "audit" }
]

export function buildApp(options: Omit<ServiceOptions, "handlers" | "plugins"> = {}): Promise<App> {
    return createService({ handlers, plugins, ...options })
}
`;
    const dir = appFolder({ 'src/app.ts': handWritten });
    expect((await registerResourceInApp('BlogPost', { baseDir: dir })).registered).toBe(true);
    const wired = appOf(dir);
    expect(wired).toBe(`// Written by hand: double quotes, no semicolons, four spaces.
import type { App } from "svckit/core"
import { createService, type ServiceOptions } from "../generated/service.js"
import { createTaskHandlers } from "./modules/tasks/tasks.handlers.js" // the first module
import { blogPostHandlers } from "./modules/blog-post/blog-post.routes.js"
import { blogPostPlugin } from "./modules/blog-post/blog-post.plugin.js"

export const limits = {max: 10,min: 1}

export const handlers: ServiceOptions["handlers"] = (service) => ({
    ...blogPostHandlers(service),
    ...createTaskHandlers(),
})

export const plugins: ServiceOptions["plugins"] = (service) => [
    { name: "audit" },
    blogPostPlugin(service)
]

export function buildApp(options: Omit<ServiceOptions, "handlers" | "plugins"> = {}): Promise<App> {
    return createService({ handlers, plugins, ...options })
}
`);
    // Byte for byte, in order: every line but the factories' heads and the array element the comma follows.
    const edited = [
      'export const handlers: ServiceOptions["handlers"] = () => ({',
      'export const plugins: ServiceOptions["plugins"] = () => [',
      '    { name: "audit" }',
    ];
    const untouched = handWritten.split('\n').filter((line) => !edited.includes(line));
    const lines = wired.split('\n');
    let found = 0;
    for (const line of lines) if (line === untouched[found]) found += 1;
    expect(untouched.slice(found)).toEqual([]);
  });

  it('puts a spread on a line of its own after a comment that opens the object, in tabs', async () => {
    const tabbed = `import { createService } from '../generated/service.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

export const app = createService({
\thandlers: () => ({ // every module's routes
\t\t// tasks first
\t\t...createTaskHandlers(),
\t}),
\tplugins: () => [],
});
`;
    const dir = appFolder({ 'src/app.ts': tabbed });
    await registerResourceInApp('BlogPost', { baseDir: dir });
    expect(appOf(dir)).toContain(`export const app = createService({
\thandlers: (service) => ({ // every module's routes
\t\t...blogPostHandlers(service),
\t\t// tasks first
\t\t...createTaskHandlers(),
\t}),
\tplugins: (service) => [blogPostPlugin(service)],
});
`);
  });

  it('reports a missing app file', async () => {
    const dir = appFolder({ 'svc.config.yaml': 'name: x\n' });
    expect(await registerResourceInApp('BlogPost', { baseDir: dir })).toEqual({
      registered: false,
      reason: APP_NOT_FOUND,
      appPath: join(dir, 'src/app.ts'),
    });
  });

  it.each([
    ['without createService', 'export const handlers = () => ({});\nexport const plugins = () => [];\n'],
    [
      'without plugins',
      INIT_APP.replace('{ handlers, plugins, ...options }', '{ handlers, ...options }').replace(
        /\n\/\*\* The app's own plugins[^\n]*\nexport const plugins[^\n]*\n/,
        '',
      ),
    ],
    ['with plugins that are not a function', INIT_APP.replace('= () => [];', '= [];')],
    [
      'with a handlers factory that may return early',
      INIT_APP.replace(
        '= () => ({\n  ...createTaskHandlers(),\n});',
        '= (service) => {\n  if (!service) return {};\n  return { ...createTaskHandlers() };\n};',
      ),
    ],
    ['with a syntax error', INIT_APP.replace('...createTaskHandlers(),', '...createTaskHandlers(,')],
  ])('leaves an app %s byte-identical', async (_, text) => {
    const dir = appFolder({ 'src/app.ts': text });
    const registration = await registerResourceInApp('BlogPost', { baseDir: dir });
    expect(registration).toEqual({
      registered: false,
      reason: UNSUPPORTED_APP,
      appPath: join(dir, 'src/app.ts'),
    });
    expect(appOf(dir)).toBe(text);
  });
});

describe('a wired app', () => {
  // svckit's entries as the app sees them, reduced to what app.ts touches, so the check parses a few lines
  // instead of the whole runtime: `handlers` and `plugins` are values or functions of the service's pieces.
  const SVCKIT_STUB = {
    'node_modules/svckit/package.json': JSON.stringify({
      name: 'svckit',
      type: 'module',
      exports: { './core': { types: './core.d.ts' }, './service': { types: './service.d.ts' } },
    }),
    'node_modules/svckit/core.d.ts': `export interface App { readonly started: boolean }
export interface Plugin { readonly name: string; setup?(app: App): void | Promise<void> }
`,
    'node_modules/svckit/service.d.ts': `import type { App, Plugin } from './core.js';
export interface ServiceContext {
  readonly app: App;
  readonly config: { readonly name: string };
  readonly stores: { readonly sql: unknown };
}
export type FromService<T> = T | ((service: ServiceContext) => T | Promise<T>);
export interface ServiceOptions<H extends object> {
  handlers: FromService<H>;
  plugins?: FromService<readonly Plugin[]>;
  logger?: unknown;
}
`,
  };

  it('type-checks in every shape', async () => {
    const wired: Record<string, string> = {};
    for (const [variant, text] of Object.entries({
      init: INIT_APP,
      reference: REFERENCE_SHAPE,
      blocks: BLOCK_BODIES,
    })) {
      const dir = appFolder({ 'src/app.ts': text });
      await registerResourceInApp('BlogPost', { baseDir: dir });
      wired[`src/${variant}-app.ts`] = appOf(dir);
    }
    const project = appFolder({
      ...SVCKIT_STUB,
      ...wired,
      'tsconfig.json': appTsconfig(['src', 'generated'], {
        types: [],
        lib: ['ES2023'],
        customConditions: [],
      }),
      'package.json': '{ "type": "module" }\n',
      'generated/service.ts': `import type { App } from 'svckit/core';
import type { ServiceOptions as Options } from 'svckit/service';
export type ServiceOptions = Options<Record<string, () => string>>;
export declare function createService(options: ServiceOptions): Promise<App>;
`,
      'src/modules/blog-post/blog-post.routes.ts': `import type { ServiceContext } from 'svckit/service';
export function blogPostHandlers(service: ServiceContext) {
  return { listBlogPosts: () => service.config.name };
}
`,
      'src/modules/blog-post/blog-post.plugin.ts': `import type { Plugin } from 'svckit/core';
import type { ServiceContext } from 'svckit/service';
export function blogPostPlugin(service: ServiceContext): Plugin {
  return { name: service.config.name };
}
`,
      'src/modules/tasks/tasks.handlers.ts': `export function createTaskHandlers() {
  return { listTasks: () => 'tasks' };
}
`,
      'src/modules/notes/notes.handlers.ts': `export function createNoteHandlers(store: { sql: unknown }) {
  return { listNotes: () => String(store.sql) };
}
`,
      'src/modules/notes/notes.sql-store.ts': `export class SqlNoteStore {
  constructor(readonly sql: unknown) {}
}
`,
    });
    expect(typeCheckProject(join(project, 'tsconfig.json'), (file) => file.startsWith('src/'))).toEqual([]);
  });
});
