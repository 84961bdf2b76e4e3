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
  planAppRegistration,
  registerResourceInApp,
} from '../../make/register.js';
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

  it('counts a module already imported, or already called in a factory, as registered', async () => {
    const imported = INIT_APP.replace(
      "import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';",
      "$&\nimport { blogPostPlugin } from './modules/blog-post/blog-post.plugin.js';",
    );
    const called = INIT_APP.replace(
      '...createTaskHandlers(),',
      '...createTaskHandlers(),\n  ...blogPostHandlers(),',
    );
    for (const text of [imported, called]) {
      const dir = appFolder({ 'src/app.ts': text });
      expect((await registerResourceInApp('BlogPost', { baseDir: dir })).reason).toBe(ALREADY_REGISTERED);
      expect(appOf(dir)).toBe(text);
    }
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
    expect(appOf(dir)).toContain(`export const app = createService({
  handlers: async (service) => ({ ...tagHandlers(service), ...(await loadHandlers()) }),
  plugins: async (service) => [...(await loadPlugins(service)), tagPlugin(service)],
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
