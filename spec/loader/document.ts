// Loading a whole spec document (svc.config.yaml, or a module spec) into the IR: structure against the
// published schema, then declarations, routes and cross-checks; every problem found is thrown together.
import type { Env } from '../../shared/env-template.js';
import type { ModuleIR, SpecIR, SpecSourcesIR } from '../../shared/ir.js';
import { readCatalog } from './catalog.js';
import { loadConfig, toConfig } from './config.js';
import { asMap, asString, entry, LoadContext } from './context.js';
import { crossCheckRoutes } from './cross-checks.js';
import { describeNode } from './describe.js';
import { loadErrors, loadMetaKeys, loadResources } from './declarations.js';
import { resolveIncludes } from './includes.js';
import { checkApiKeyScopes } from './api-key-scopes.js';
import { checkMetaModules } from './meta-modules.js';
import { moduleSettingsOf } from './module-settings.js';
import { loadEnabledModules, loadFeatures } from './modules.js';
import { defaultCatalogFile, SVC_SCHEMA } from './package-files.js';
import { Problems, SpecError } from './problems.js';
import { loadRoutes } from './routes.js';
import { readSpecFile } from './source.js';
import { checkTenancy } from './tenancy-meta.js';

export interface LoadOptions {
  /** Values for `${VAR}` references (default: process.env). */
  env?: Record<string, string | undefined>;
  /** The built-in error catalog to check codes against (default: spec/errors.yaml of svckit). */
  catalogFile?: string;
  /**
   * The spec file's text, loaded as if the file held it (an edit checked before it is saved): positions and
   * includes resolve from `file` as usual. Only the spec file itself; included files are read.
   */
  text?: string;
}

/** Loads svc.config.yaml (kind 'app'). Throws SpecError listing every problem found. */
export function loadSpec(file: string, options: LoadOptions = {}): Promise<SpecIR> {
  return loadDocument(file, 'app', options);
}

/** Loads a built-in module spec (spec/modules/*.yaml, kind 'module'). Throws SpecError on problems. */
export function loadModuleSpec(file: string, options: LoadOptions = {}): Promise<SpecIR> {
  return loadDocument(file, 'module', options);
}

async function loadDocument(file: string, kind: SpecIR['kind'], options: LoadOptions): Promise<SpecIR> {
  const sources: SpecSourcesIR = { files: [], directories: [] };
  try {
    return await readDocument(file, kind, options, sources);
  } catch (error) {
    // The files read so far, so a watcher also notices the fix to an included file that broke the load.
    if (error instanceof SpecError) error.sources = sources;
    throw error;
  }
}

async function readDocument(
  file: string,
  kind: SpecIR['kind'],
  options: LoadOptions,
  sources: SpecSourcesIR,
): Promise<SpecIR> {
  const problems = new Problems();
  const env: Env = options.env ?? process.env;
  const catalog = await readCatalog(options.catalogFile ?? defaultCatalogFile(), problems);
  const source = await readSpecFile(file, env, problems, options.text);
  sources.files.push(source.file);
  const ctx = new LoadContext(source.file, problems);
  for (const error of catalog) ctx.catalog.set(error.code, error);
  const root = source.root;
  if (!root) return problems.throwIfAny() as never;
  const map = asMap(root);
  if (!map) {
    const first = kind === 'app' ? 'svc: 1, name, version, routes' : 'svc: 1, module, version';
    problems.add(
      root.loc,
      '',
      `a spec is a mapping of keys (${first}, ...) but this file holds ${describeNode(root)}`,
      'start the file with: svc: 1',
    );
    return problems.throwIfAny() as never;
  }
  if (kind === 'app') Object.assign(sources, await resolveIncludes(ctx, map, source.file, env));
  ctx.report(ctx.structure.check(root, SVC_SCHEMA, kind === 'app' ? '' : '/$defs/moduleSpec', []));

  const resources = loadResources(ctx, asMap(entry(map, 'resources')));
  const errors = loadErrors(ctx, asMap(entry(map, 'errors')), kind === 'app' ? 'app' : undefined);
  const metaKeys = loadMetaKeys(ctx, asMap(entry(map, 'metaKeys')));
  const routesNode = asMap(entry(map, 'routes'));
  const routes = loadRoutes(ctx, routesNode);
  crossCheckRoutes(ctx, routes, routesNode);
  const features = kind === 'module' ? loadFeatures(ctx, asMap(entry(map, 'features')), routes) : {};
  const modulesNode = entry(map, 'modules');
  if (kind === 'app') {
    checkMetaModules(ctx, routesNode, modulesNode && toConfig(modulesNode));
    checkTenancy(ctx, routesNode, modulesNode);
    checkApiKeyScopes(ctx, routesNode, modulesNode, moduleSettingsOf(modulesNode && toConfig(modulesNode)));
  }
  problems.throwIfAny();

  // Built-in modules with routes of their own (modules.auth), loaded once the document itself is sound.
  const modules: ModuleIR[] =
    kind === 'app'
      ? await loadEnabledModules(ctx, modulesNode, { routes, resources, routesNode }, (moduleFile) =>
          loadDocument(moduleFile, 'module', { env: {}, ...catalogOption(options) }),
        )
      : [];
  problems.throwIfAny();

  const title = asString(entry(map, 'title'));
  const description = asString(entry(map, 'description'));
  const config = kind === 'app' ? loadConfig(ctx, map) : {};
  const spec: SpecIR = {
    kind,
    file: source.file,
    name: asString(entry(map, kind === 'app' ? 'name' : 'module')) ?? '',
    version: asString(entry(map, 'version')) ?? '',
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    resources,
    routes,
    errors,
    catalog,
    metaKeys,
    config,
    moduleSettings: kind === 'app' ? moduleSettingsOf(config.modules) : {},
    ...(Object.keys(features).length > 0 ? { features } : {}),
    ...(modules.length > 0 ? { modules } : {}),
    ...(kind === 'app' ? { sources } : {}),
  };
  return spec;
}

function catalogOption(options: LoadOptions): { catalogFile?: string } {
  return options.catalogFile === undefined ? {} : { catalogFile: options.catalogFile };
}
