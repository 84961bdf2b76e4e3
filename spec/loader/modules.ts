// Built-in modules an application enables under `modules:` whose routes svckit declares in a module spec
// (spec/modules/<name>.yaml). Each is loaded and merged into what the application describes
// (types, openapi.json, client, tools) minus the routes it omits, so its route ids, paths and resource names
// must not clash with the application's: a clash is a problem at the application's declaration that names
// the module's too. A module spec's `features` (`mfa: [mfaEnroll, ...]`) names routes that exist only when
// the module option of that name is `true` (or the mapping of its settings); the rest are always there. The
// files module decides some of its routes through settings under `routes` (files-module.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseDuration } from '../../shared/duration.js';
import {
  RESOURCE_REF_PREFIX,
  type JsonSchema,
  type ModuleIR,
  type ResourceIR,
  type RouteIR,
  type SourceLocation,
  type SpecIR,
} from '../../shared/ir.js';
import { withOfferedScopes } from './api-key-input.js';
import { toConfig } from './config.js';
import { asMap, asScalar, entry, type LoadContext } from './context.js';
import { checkFilesModule, FILES_ROUTE_SETTINGS, filesRoutesOff, withFilesSettings } from './files-module.js';
import { moduleSettingsOf } from './module-settings.js';
import { packageRoot } from '../../shared/package-root.js';
import { displayPath } from './problems.js';
import { pathShape } from '../../shared/path-template.js';
import { suggestionHint } from './suggest.js';
import type { MapNode, Node } from './yaml-tree.js';

/** svckit's module spec of `name` (it may not exist: edge and idempotency have no routes of their own). */
export function moduleSpecFile(name: string): string {
  return join(packageRoot(), 'spec', 'modules', `${name}.yaml`);
}

/** The names of every module spec svckit ships (spec/modules/*.yaml), sorted. */
export function moduleSpecNames(): string[] {
  const dir = join(packageRoot(), 'spec', 'modules');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => name.slice(0, -'.yaml'.length))
    .sort();
}

/** Options that are durations, per module, and the least value the runtime accepts (ms). */
const DURATION_OPTIONS: Record<string, { keys: readonly string[]; min: number; least: string }> = {
  auth: {
    keys: ['accessTtl', 'refreshTtl', 'sessionTtl', 'verificationTtl', 'resetTtl'],
    min: 1000,
    least: '1s',
  },
};

/**
 * Options that only mean something with another option of the same module on, per module: the option and
 * the one it needs (`requireMfa` without `mfa` would refuse every sign-in of a user who cannot enrol).
 */
const OPTION_NEEDS: Record<string, Record<string, string>> = {
  auth: { requireMfa: 'mfa' },
};

/** Keys of `modules.<module>.routes` that are settings of the module rather than route ids. */
const ROUTE_SETTINGS: Record<string, readonly string[]> = { files: FILES_ROUTE_SETTINGS };

export interface AppDeclarations {
  routes: readonly RouteIR[];
  resources: readonly ResourceIR[];
  routesNode: MapNode | undefined;
}

/**
 * The enabled modules that have a module spec, in the order `modules:` lists them. `loadModule` loads a
 * module spec (the loader's loadModuleSpec with the same catalog). Problems go to `ctx.problems`.
 */
export async function loadEnabledModules(
  ctx: LoadContext,
  modulesNode: Node | undefined,
  app: AppDeclarations,
  loadModule: (file: string) => Promise<SpecIR>,
): Promise<ModuleIR[]> {
  const modules: ModuleIR[] = [];
  const section = asMap(modulesNode);
  if (!section) return modules;
  const taken: TakenRoute[] = app.routes.map((route) => ({ route, owner: undefined }));
  for (const item of section.entries) {
    const file = moduleSpecFile(item.key);
    if (!existsSync(file)) continue;
    if (refusesReference(ctx, item.value, ['modules', item.key]) || !enabled(item.value)) continue;
    const options = asMap(item.value);
    checkDurations(ctx, item.key, options);
    checkOptionNeeds(ctx, item.key, options);
    if (item.key === 'files') checkFilesModule(ctx, section, item);
    const spec = withApplicationSettings(await loadModule(file), item.key, modulesNode);
    const omitted = omittedRoutes(ctx, item.key, options, spec);
    const featureOff = routesOfFeaturesOff(ctx, item.key, options, spec);
    if (item.key === 'files') for (const id of filesRoutesOff(options)) featureOff.add(id);
    const routes = spec.routes.filter((route) => !omitted.has(route.id) && !featureOff.has(route.id));
    for (const route of routes) checkRouteClash(ctx, route, spec.name, taken, app.routesNode);
    taken.push(...routes.map((route) => ({ route, owner: spec.name })));
    const used = referencedResources(routes, spec.resources);
    const resources: ResourceIR[] = [];
    for (const resource of spec.resources) {
      if (!used.has(resource.name)) continue;
      const own = app.resources.find((candidate) => candidate.name === resource.name);
      if (!own) resources.push(resource);
      else if (!isDeepStrictEqual(own.schema, resource.schema)) {
        ctx.problems.add(
          own.loc,
          ['resources', own.name],
          `resource '${own.name}' clashes with the resource of the same name of the ${spec.name} module (${where(resource.loc)}), which is declared differently`,
          `rename this resource, or declare it exactly as the module does`,
        );
      }
    }
    modules.push({
      name: spec.name,
      version: spec.version,
      file: spec.file,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      resources,
      routes,
      omittedRoutes: spec.routes.filter((route) => omitted.has(route.id)).map((route) => route.id),
      errors: spec.errors,
    });
  }
  return modules;
}

/**
 * The module spec as this application's settings shape it: the auth module lists the offered key scopes, the
 * files module's upload route takes the application's limits.
 */
function withApplicationSettings(spec: SpecIR, module: string, modulesNode: Node | undefined): SpecIR {
  if (module === 'files') return withFilesSettings(spec, asMap(entry(asMap(modulesNode), 'files')));
  if (module !== 'auth') return spec;
  const apiKeys = moduleSettingsOf(toConfig(modulesNode!)).auth?.apiKeys;
  if (apiKeys === undefined) return spec;
  return { ...spec, resources: withOfferedScopes(spec.resources, apiKeys.scopes) };
}

/** `true` or a mapping of options; `false`, `null` and anything else leave the module off. */
function enabled(node: Node): boolean {
  if (node.kind === 'map') return true;
  return node.kind === 'scalar' && node.value === true;
}

/** `routes: { <id>: false }`: the ids to leave out. An id the module does not have is a problem. */
function omittedRoutes(
  ctx: LoadContext,
  module: string,
  options: MapNode | undefined,
  spec: SpecIR,
): Set<string> {
  const omitted = new Set<string>();
  const routesNode = asMap(entry(options, 'routes'));
  if (!routesNode) return omitted;
  const ids = spec.routes.map((route) => route.id);
  const settings = ROUTE_SETTINGS[module] ?? [];
  for (const item of routesNode.entries) {
    if (settings.includes(item.key)) continue;
    if (!ids.includes(item.key)) {
      ctx.problems.add(
        item.keyLoc,
        ['modules', module, 'routes', item.key],
        `the ${module} module has no route '${item.key}'`,
        suggestionHint(item.key, ids, 'its routes'),
      );
      continue;
    }
    if (refusesReference(ctx, item.value, ['modules', module, 'routes', item.key])) continue;
    if (asScalar(item.value)?.value === false) omitted.add(item.key);
  }
  return omitted;
}

/**
 * The route ids of the module spec's features that `options` leaves off: a feature is on only when the option
 * of its name is `true` or a mapping of its settings (`passkeys: { rpId, origins }`); a `${VAR}` in its place
 * is refused: it decides which routes the build documents.
 */
function routesOfFeaturesOff(
  ctx: LoadContext,
  module: string,
  options: MapNode | undefined,
  spec: SpecIR,
): Set<string> {
  const off = new Set<string>();
  for (const [feature, ids] of Object.entries(spec.features ?? {})) {
    const node = entry(options, feature);
    if (node !== undefined && refusesReference(ctx, node, ['modules', module, feature])) continue;
    if (node !== undefined && enabled(node)) continue;
    for (const id of ids) off.add(id);
  }
  return off;
}

/**
 * A module spec's `features`: route ids by the option that turns them on. Each id must name a route of the
 * spec, and a route belongs to one feature at most (two options would each seem to decide it).
 */
export function loadFeatures(
  ctx: LoadContext,
  featuresNode: MapNode | undefined,
  routes: readonly RouteIR[],
): Record<string, string[]> {
  const features: Record<string, string[]> = {};
  if (!featuresNode) return features;
  const ids = routes.map((route) => route.id);
  const owner = new Map<string, string>();
  for (const item of featuresNode.entries) {
    const list = item.value.kind === 'seq' ? item.value.items : [];
    features[item.key] = [];
    for (const idNode of list) {
      const id = asScalar(idNode)?.value;
      if (typeof id !== 'string') continue;
      const path = ['features', item.key];
      if (!ids.includes(id)) {
        ctx.problems.add(
          idNode.loc,
          path,
          `feature '${item.key}' lists '${id}', which is no route of this spec`,
          suggestionHint(id, ids, 'its routes'),
        );
        continue;
      }
      const earlier = owner.get(id);
      if (earlier !== undefined && earlier !== item.key) {
        ctx.problems.add(
          idNode.loc,
          path,
          `route '${id}' is listed under feature '${earlier}' already; a route belongs to one feature at most`,
          `remove '${id}' from one of the two`,
        );
        continue;
      }
      owner.set(id, item.key);
      features[item.key]!.push(id);
    }
  }
  return features;
}

/** OPTION_NEEDS: an option that is `true` while the option it needs is not. */
function checkOptionNeeds(ctx: LoadContext, module: string, options: MapNode | undefined): void {
  for (const [option, needed] of Object.entries(OPTION_NEEDS[module] ?? {})) {
    const node = asScalar(entry(options, option));
    if (node?.value !== true || asScalar(entry(options, needed))?.value === true) continue;
    ctx.problems.add(
      node.loc,
      ['modules', module, option],
      `modules.${module}.${option} needs modules.${module}.${needed}: true, which this spec does not set`,
      `add ${needed}: true under modules.${module}, or remove ${option}`,
    );
  }
}

/**
 * Whether a module is on and which of its routes exist decide what the build writes (openapi.json, the
 * client), so they cannot wait for the environment at start: a `${VAR}` there is a problem.
 */
function refusesReference(ctx: LoadContext, node: Node, path: string[]): boolean {
  if (node.kind !== 'scalar' || node.template === undefined) return false;
  ctx.problems.add(
    node.loc,
    path,
    `${path.join('.')} decides which routes the build documents, so it cannot be a \${VAR} resolved at start`,
    'write true or false (or, for a module, a mapping of its options)',
  );
  return true;
}

/** Durations the runtime would refuse at start (below its least value), reported at build already. */
function checkDurations(ctx: LoadContext, module: string, options: MapNode | undefined): void {
  const rule = DURATION_OPTIONS[module];
  if (!rule || !options) return;
  for (const key of rule.keys) {
    const node = asScalar(entry(options, key));
    if (!node || node.value === null) continue;
    const ms = parseDuration(node.value);
    if (ms !== undefined && ms >= rule.min) continue;
    ctx.problems.add(
      node.loc,
      ['modules', module, key],
      `modules.${module}.${key}: expected a duration of at least ${rule.least} but got ${JSON.stringify(node.value)}`,
      `write milliseconds (at least ${rule.min}) or a number with a unit: 30s, 15m, 1h or 30d`,
    );
  }
}

interface TakenRoute {
  route: RouteIR;
  /** The module that declares it; undefined for the application's own. */
  owner: string | undefined;
}

/**
 * A module route whose id or method and path the application (or an earlier module) already uses. The
 * problem sits at the application's route (its path, for a path clash) and names the module's route.
 */
function checkRouteClash(
  ctx: LoadContext,
  route: RouteIR,
  module: string,
  taken: readonly TakenRoute[],
  routesNode: MapNode | undefined,
): void {
  const shape = `${route.method} ${pathShape(route.path)}`;
  const theirs = `route '${route.id}' of the ${module} module (${route.method} ${route.path}, ${where(route.loc)})`;
  const omit = `modules: { ${module}: { routes: { ${route.id}: false } } }`;
  for (const { route: other, owner } of taken) {
    const at = (key?: string): SourceLocation => {
      if (owner !== undefined) return route.loc;
      const node = key === undefined ? undefined : entry(asMap(entry(routesNode, other.id)), key);
      return node?.loc ?? other.loc;
    };
    const mine = owner === undefined ? 'this route' : `route '${other.id}' of the ${owner} module`;
    if (other.id === route.id) {
      ctx.problems.add(
        at(),
        ['routes', other.id],
        `route id '${other.id}' clashes with ${theirs}`,
        owner === undefined
          ? `rename ${mine}, or leave the module's out: ${omit}`
          : `leave one of them out: ${omit}`,
      );
    }
    if (`${other.method} ${pathShape(other.path)}` === shape) {
      ctx.problems.add(
        at('path'),
        ['routes', other.id, 'path'],
        `${other.method} ${other.path} of '${other.id}' clashes with ${theirs}`,
        owner === undefined
          ? `change the path or the method, or leave the module's route out: ${omit}`
          : `leave one of them out: ${omit}`,
      );
    }
  }
}

/** Resources the routes refer to, directly or through other resources. */
function referencedResources(routes: readonly RouteIR[], resources: readonly ResourceIR[]): Set<string> {
  const byName = new Map(resources.map((resource) => [resource.name, resource.schema]));
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(RESOURCE_REF_PREFIX)) {
        const name = inner.slice(RESOURCE_REF_PREFIX.length).split('/')[0] ?? '';
        if (!used.has(name)) {
          used.add(name);
          visit(byName.get(name));
        }
      } else visit(inner);
    }
  };
  for (const route of routes) {
    const schemas: (JsonSchema | undefined)[] = [route.params, route.query];
    if (route.body?.kind === 'json') schemas.push(route.body.schema);
    if (route.body?.kind === 'upload') schemas.push(route.body.fields);
    visit(schemas);
    visit(Object.values(route.responses));
  }
  return used;
}

function where(loc: SourceLocation): string {
  return `${displayPath(loc.file)}:${loc.line}:${loc.column}`;
}
