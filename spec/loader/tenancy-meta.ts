// What only the spec as a whole can tell about `modules.tenancy`: that auth is on (members are accounts), that
// each permission grants declared roles, and that every route's `meta.teamRole` names a role and every
// `meta.can` a declared permission; a misspelt one would refuse every caller at run time. The roles and
// permissions decide these checks, so they are written out: a `${VAR}` resolved at start is refused there.
// The module's own routes (spec/modules/tenancy.yaml) ask for `tenant:members`, which is always declared.
import { DEFAULT_ROLES, MEMBERS_PERMISSION, PERMISSION_NAME, ROLE_NAME } from '../../shared/tenancy-roles.js';
import { toConfig } from './config.js';
import { asMap, entry, type LoadContext, type Path } from './context.js';
import { at, describeNode } from './describe.js';
import { moduleIsOn } from './module-settings.js';
import { closest } from './suggest.js';
import type { MapNode, Node, ScalarNode } from './yaml-tree.js';

const TENANCY: Path = ['modules', 'tenancy'];
const WRITE_ROLES = 'write the roles themselves, most powerful first, e.g. roles: [owner, admin, member]';
const WRITE_PERMISSIONS = `write each permission and the roles granted it, e.g. permissions: { 'notes:delete': [owner, admin] }`;

/** Reports what `modules.tenancy` and the routes' `teamRole`/`can` get wrong; nothing while tenancy is off. */
export function checkTenancy(
  ctx: LoadContext,
  routesNode: MapNode | undefined,
  modulesNode: Node | undefined,
): void {
  const module = asMap(modulesNode)?.byKey.get('tenancy');
  // `false` leaves it off (meta-modules.ts refuses the keys then); a `${VAR}` is refused by modules.ts.
  if (module === undefined || !isEnabled(module.value)) return;
  if (!moduleIsOn(toConfig(modulesNode!), 'auth')) {
    ctx.problems.add(
      module.keyLoc,
      TENANCY,
      'modules.tenancy needs the auth module, which this spec does not enable: the members of a tenant are accounts',
      'enable it with modules: { auth: true }, next to tenancy',
    );
  }
  const options = asMap(module.value);
  const roles = declaredRoles(ctx, entry(options, 'roles'));
  const permissions = declaredPermissionNames(ctx, entry(options, 'permissions'), roles);
  for (const route of routesNode?.entries ?? []) {
    const meta = asMap(entry(asMap(route.value), 'meta'));
    const path = ['routes', route.key, 'meta'];
    const teamRole = meta?.byKey.get('teamRole');
    if (teamRole !== undefined && roles !== undefined)
      checkTeamRole(ctx, teamRole.value, [...path, 'teamRole'], roles);
    const can = meta?.byKey.get('can');
    if (can !== undefined && permissions !== undefined)
      checkCan(ctx, can.value, [...path, 'can'], permissions);
  }
}

/** `true` or a mapping of options; `false`, null and a `${VAR}` (refused elsewhere) leave nothing to check. */
function isEnabled(node: Node): boolean {
  if (node.kind === 'map') return true;
  return node.kind === 'scalar' && node.template === undefined && node.value === true;
}

/**
 * The roles the spec declares (the defaults when it names none), or undefined when they cannot be known: a
 * `${VAR}` (reported here) or a shape the structure check already refused.
 */
function declaredRoles(ctx: LoadContext, node: Node | undefined): readonly string[] | undefined {
  if (node === undefined) return DEFAULT_ROLES;
  if (refusesReference(ctx, node, [...TENANCY, 'roles'], WRITE_ROLES)) return undefined;
  if (node.kind !== 'seq' || node.items.length === 0) return undefined;
  const roles = node.items.map((item) => roleName(item));
  if (roles.some((role) => role === undefined)) return undefined;
  return new Set(roles).size === roles.length ? (roles as string[]) : undefined;
}

function roleName(node: Node): string | undefined {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') return undefined;
  return ROLE_NAME.test(node.value) ? node.value : undefined;
}

/**
 * The permission names `meta.can` may use (`tenant:members` always among them), or undefined when they cannot
 * be known. Reports each granted role `roles` lacks, at the role.
 */
function declaredPermissionNames(
  ctx: LoadContext,
  node: Node | undefined,
  roles: readonly string[] | undefined,
): ReadonlySet<string> | undefined {
  if (node === undefined) return new Set([MEMBERS_PERMISSION]);
  const path = [...TENANCY, 'permissions'];
  if (refusesReference(ctx, node, path, WRITE_PERMISSIONS)) return undefined;
  if (node.kind !== 'map') return undefined;
  const names = new Set([MEMBERS_PERMISSION]);
  let known = true;
  for (const permission of node.entries) {
    names.add(permission.key);
    if (!PERMISSION_NAME.test(permission.key)) known = false;
    const grantedPath = [...path, permission.key];
    if (permission.value.kind !== 'seq' || roles === undefined) continue;
    permission.value.items.forEach((item, index) => {
      if (item.kind !== 'scalar' || typeof item.value !== 'string' || roles.includes(item.value)) return;
      ctx.problems.add(
        item.loc,
        [...grantedPath, index],
        `${at([...grantedPath, index])}'${item.value}' is not a role of modules.tenancy.roles`,
        `${didYouMean(item.value, roles)}grant roles of modules.tenancy.roles: ${roles.join(', ')}`,
      );
    });
  }
  return known ? names : undefined;
}

/** `teamRole` (unless the opt-off false) is one of the declared roles. */
function checkTeamRole(ctx: LoadContext, value: Node, path: Path, roles: readonly string[]): void {
  if (value.kind === 'scalar' && (value.value === false || value.broken === true)) return;
  const role = value.kind === 'scalar' && typeof value.value === 'string' ? value.value : undefined;
  if (role !== undefined && roles.includes(role)) return;
  ctx.problems.add(
    value.loc,
    path,
    role === undefined
      ? `${at(path)}expected a role of modules.tenancy.roles but got ${describeNode(value)}`
      : `${at(path)}'${role}' is not a role of modules.tenancy.roles`,
    `${didYouMean(role, roles)}write one of the roles, most powerful first: ${roles.join(', ')} (the caller's role must be it or a more powerful one)`,
  );
}

/**
 * Each permission `can` names is declared. Values of the wrong shape (`can: 42`, `can: []`) are refused by
 * the published schema already (svc.schema.json#/$defs/meta), so only names are looked at here.
 */
function checkCan(ctx: LoadContext, value: Node, path: Path, permissions: ReadonlySet<string>): void {
  const named: [ScalarNode, Path][] =
    value.kind === 'seq'
      ? value.items.flatMap((item, index) => (item.kind === 'scalar' ? [[item, [...path, index]]] : []))
      : value.kind === 'scalar'
        ? [[value, path]]
        : [];
  const declared = [...permissions];
  for (const [node, where] of named) {
    if (typeof node.value !== 'string' || node.value === '' || node.broken === true) continue;
    if (permissions.has(node.value)) continue;
    ctx.problems.add(
      node.loc,
      where,
      `${at(where)}permission '${node.value}' is not declared under modules.tenancy.permissions`,
      `${didYouMean(node.value, declared)}the declared permissions: ${declared.join(', ')}; or declare it with the roles granted it: permissions: { '${node.value}': [<roles>] } ([] when only the application's authorize check grants it)`,
    );
  }
}

/**
 * A `${VAR}` anywhere in `node` is reported: what the build checks routes against cannot wait for the start.
 * True when one was found.
 */
function refusesReference(ctx: LoadContext, node: Node, path: Path, hint: string): boolean {
  const reference = firstReference(node, path);
  if (reference === undefined) return false;
  ctx.problems.add(
    reference.node.loc,
    reference.path,
    `${path.join('.')} decides what the build checks meta.teamRole and meta.can against, so it cannot hold a \${VAR} resolved at start`,
    hint,
  );
  return true;
}

function firstReference(node: Node, path: Path): { node: ScalarNode; path: Path } | undefined {
  if (node.kind === 'scalar') return node.template === undefined ? undefined : { node, path };
  const children: [Node, Path][] =
    node.kind === 'seq'
      ? node.items.map((item, index) => [item, [...path, index]])
      : node.entries.map((item) => [item.value, [...path, item.key]]);
  for (const [child, childPath] of children) {
    const found = firstReference(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `did you mean 'admin'? ` when `input` looks like a typo of a candidate, else nothing. */
function didYouMean(input: string | undefined, candidates: readonly string[]): string {
  const match = input === undefined ? undefined : closest(input, candidates);
  return match === undefined ? '' : `did you mean '${match}'? `;
}
