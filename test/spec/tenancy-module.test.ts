// `modules.tenancy`: teams whose members hold roles. The build reads its roles and permissions into the module
// model (defaults applied, `tenant:members` always declared), refuses it without auth (members are accounts),
// refuses a permission granted to a role the service does not have, and refuses a `${VAR}` in roles or
// permissions: they decide what the build checks `meta.teamRole` and `meta.can` against.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadModuleSpec } from 'svckit/spec';
import { DEFAULT_ROLES, PERMISSION_NAME, ROLE_NAME } from '../../shared/tenancy-roles.js';
import { HEAD, expectOnly, load, problemsOf } from './helpers.js';

const spec = (modules: string, routes = 'routes: {}\n') => `${HEAD}modules:\n${modules}${routes}`;

describe('modules.tenancy in the module model', () => {
  it('`tenancy: true` takes the default roles, header and tenant:members grant, and merges the team routes', async () => {
    const ir = await load(spec('  auth: true\n  tenancy: true\n'));
    expect(ir.moduleSettings.tenancy).toEqual({
      header: 'x-tenant-id',
      roles: ['owner', 'admin', 'member'],
      permissions: { 'tenant:members': ['owner', 'admin'] },
    });
    const tenancy = ir.modules?.find((module) => module.name === 'tenancy');
    expect(tenancy?.routes.map((route) => route.id)).toContain('addMember');
  });

  it('keeps the options written: roles, permissions over the default grant, header', async () => {
    const ir = await load(
      spec(
        "  auth: true\n  tenancy:\n    roles: [lead, editor, viewer]\n    permissions:\n      'notes:delete': [lead]\n      'notes.read': [lead, editor, viewer]\n    header: x-team\n",
      ),
    );
    expect(ir.moduleSettings.tenancy).toEqual({
      header: 'x-team',
      roles: ['lead', 'editor', 'viewer'],
      permissions: {
        'tenant:members': ['lead', 'editor'],
        'notes:delete': ['lead'],
        'notes.read': ['lead', 'editor', 'viewer'],
      },
    });
  });

  it('grants tenant:members to the only role when there is one, and lets permissions replace the default', async () => {
    const single = await load(spec('  auth: true\n  tenancy: { roles: [member] }\n'));
    expect(single.moduleSettings.tenancy?.permissions).toEqual({ 'tenant:members': ['member'] });
    const replaced = await load(
      spec("  auth: true\n  tenancy: { permissions: { 'tenant:members': [owner] } }\n"),
    );
    expect(replaced.moduleSettings.tenancy?.permissions).toEqual({ 'tenant:members': ['owner'] });
  });

  it('leaves out the team routes `routes` sets to false', async () => {
    const ir = await load(
      spec('  auth: true\n  tenancy: { routes: { addMember: false, leaveTenant: true } }\n'),
    );
    const tenancy = ir.modules?.find((module) => module.name === 'tenancy');
    expect(tenancy?.omittedRoutes).toEqual(['addMember']);
    expect(tenancy?.routes.map((route) => route.id)).not.toContain('addMember');
  });

  it('leaves the module out when it is false or absent', async () => {
    const off = await load(spec('  auth: true\n  tenancy: false\n'));
    expect(off.moduleSettings.tenancy).toBeUndefined();
    expect(off.modules?.map((module) => module.name)).toEqual(['auth']);
  });
});

describe('modules.tenancy refused at build', () => {
  it('needs the auth module, at modules.tenancy', async () => {
    await expectOnly(spec('  tenancy: true\n'), {
      line: 5,
      column: 3,
      path: 'modules.tenancy',
      message:
        'modules.tenancy needs the auth module, which this spec does not enable: the members of a tenant are accounts',
      hint: 'enable it with modules: { auth: true }, next to tenancy',
    });
    await expectOnly(spec('  auth: false\n  tenancy: { roles: [owner, member] }\n'), {
      line: 6,
      column: 3,
      message: /^modules\.tenancy needs the auth module/,
    });
  });

  it('refuses a permission granted to a role the service does not have, at that role', async () => {
    await expectOnly(
      spec(
        "  auth: true\n  tenancy:\n    roles: [owner, admin, member]\n    permissions:\n      'notes:delete': [owner, admn]\n",
      ),
      {
        line: 9,
        column: 31,
        path: 'modules.tenancy.permissions.notes:delete.1',
        message: "modules.tenancy.permissions.notes:delete.1: 'admn' is not a role of modules.tenancy.roles",
        hint: "did you mean 'admin'? grant roles of modules.tenancy.roles: owner, admin, member",
      },
    );
    // The default roles count when `roles` is not written.
    await expectOnly(spec("  auth: true\n  tenancy: { permissions: { 'notes:delete': [editor] } }\n"), {
      line: 6,
      column: 46,
      message: "modules.tenancy.permissions.notes:delete.0: 'editor' is not a role of modules.tenancy.roles",
      hint: 'grant roles of modules.tenancy.roles: owner, admin, member',
    });
  });

  it('refuses a ${VAR} in roles or permissions: the build checks routes against them', async () => {
    const result = await problemsOf(
      spec(
        "  auth: true\n  tenancy:\n    roles: [owner, '${EXTRA_ROLE:-member}']\n    permissions:\n      'notes:delete': ['${DELETERS:-owner}']\n",
      ),
    );
    expect(result.problems.map((p) => [p.line, p.column, p.path, p.message])).toEqual([
      [
        7,
        20,
        'modules.tenancy.roles.1',
        'modules.tenancy.roles decides what the build checks meta.teamRole and meta.can against, so it cannot hold a ${VAR} resolved at start',
      ],
      [
        9,
        24,
        'modules.tenancy.permissions.notes:delete.0',
        'modules.tenancy.permissions decides what the build checks meta.teamRole and meta.can against, so it cannot hold a ${VAR} resolved at start',
      ],
    ]);
    expect(result.problems[0]!.hint).toBe(
      'write the roles themselves, most powerful first, e.g. roles: [owner, admin, member]',
    );
  });

  it('refuses the module itself as a ${VAR}: it decides which routes are documented', async () => {
    await expectOnly(spec("  auth: true\n  tenancy: '${TENANCY:-true}'\n"), {
      line: 6,
      column: 12,
      message: /^modules\.tenancy decides which routes the build documents/,
    });
  });

  it.each([
    ['roles: []', 21, /^modules\.tenancy\.roles: must list at least 1 item/],
    ['roles: [owner, owner]', 29, /^modules\.tenancy\.roles: 'owner' is listed twice/],
    ['roles: [Owner]', 22, /^modules\.tenancy\.roles\.0: 'Owner' is not a valid role name/],
    ["permissions: { 'notes delete': [owner] }", 29, /'notes delete' is not a valid permission name/],
    ['header: X-Tenant', 22, /^modules\.tenancy\.header: 'X-Tenant' is not a valid header name/],
    ['headr: x-team', 14, /^unknown key 'headr' in modules\.tenancy/],
  ])('refuses %s by the published schema', async (option, column, message) => {
    await expectOnly(spec(`  auth: true\n  tenancy: { ${option} }\n`), { line: 6, column, message });
  });
});

/** The options of `modules.tenancy` as svc.schema.json publishes them. */
interface TenancyOptionsSchema {
  roles: { items: { pattern: string }; default: string[] };
  permissions: { propertyNames: { pattern: string } };
  routes: { properties: Record<string, unknown> };
}

function tenancyOptionsSchema(): TenancyOptionsSchema {
  const schema = JSON.parse(readFileSync(new URL('../../spec/svc.schema.json', import.meta.url), 'utf8')) as {
    $defs: { tenancyModule: { anyOf: [unknown, { properties: TenancyOptionsSchema }] } };
  };
  return schema.$defs.tenancyModule.anyOf[1].properties;
}

describe('svc.schema.json and the runtime share the role rules', () => {
  it('names every team route of spec/modules/tenancy.yaml under `routes`, and nothing else', async () => {
    const file = new URL('../../spec/modules/tenancy.yaml', import.meta.url).pathname;
    const module = await loadModuleSpec(file, { env: {} });
    expect(Object.keys(tenancyOptionsSchema().routes.properties)).toEqual(
      module.routes.map((route) => route.id),
    );
  });

  it('writes the role-name and permission-name patterns and the default roles of shared/tenancy-roles.ts', () => {
    const options = tenancyOptionsSchema();
    expect(options.roles.items.pattern).toBe(ROLE_NAME.source);
    expect(options.permissions.propertyNames.pattern).toBe(PERMISSION_NAME.source);
    expect(options.roles.default).toEqual(DEFAULT_ROLES);
  });
});
