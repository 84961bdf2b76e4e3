// With modules.tenancy on, `meta.teamRole` must name a role of modules.tenancy.roles and `meta.can` declared
// permissions: a misspelt one would refuse every caller at run time, so the build refuses it at the value,
// listing what there is. The tenancy module's own routes ask for `tenant:members`, which is always declared.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, load, problemsOf } from './helpers.js';

const MODULES = `modules:
  auth: true
  tenancy:
    roles: [owner, admin, member]
    permissions:
      'notes:delete': [owner, admin]
`;
/** One route `a` (line 11) whose meta is `auth: true` and `meta`, whose key starts at column 54. */
const spec = (meta: string, modules = MODULES) =>
  `${HEAD}${modules}routes:\n  a: { method: DELETE, path: /a, meta: { auth: true, ${meta} } }\n`;
const VALUE = (key: string) => ({ line: 11, column: 54 + key.length + 2 });

describe('meta.teamRole with modules.tenancy', () => {
  it('accepts a declared role, and the opt-off false', async () => {
    const ir = await load(spec('teamRole: admin'));
    expect(ir.routes[0]!.meta.teamRole).toBe('admin');
    await expect(load(spec('teamRole: false'))).resolves.toBeDefined();
  });

  it('refuses a role the service does not have, with a did-you-mean and the roles', async () => {
    await expectOnly(spec('teamRole: admn'), {
      ...VALUE('teamRole'),
      path: 'routes.a.meta.teamRole',
      message: "routes.a.meta.teamRole: 'admn' is not a role of modules.tenancy.roles",
      hint: "did you mean 'admin'? write one of the roles, most powerful first: owner, admin, member (the caller's role must be it or a more powerful one)",
    });
  });

  it('refuses a value that is not a role name', async () => {
    await expectOnly(spec('teamRole: 42'), {
      ...VALUE('teamRole'),
      message: 'routes.a.meta.teamRole: expected a role of modules.tenancy.roles but got 42',
      hint: "write one of the roles, most powerful first: owner, admin, member (the caller's role must be it or a more powerful one)",
    });
    await expectOnly(spec('teamRole: [admin]'), {
      ...VALUE('teamRole'),
      message: 'routes.a.meta.teamRole: expected a role of modules.tenancy.roles but got a list',
    });
  });

  it('checks against the default roles when modules.tenancy names none', async () => {
    await expect(
      load(spec('teamRole: member', 'modules: { auth: true, tenancy: true }\n')),
    ).resolves.toBeDefined();
    await expectOnly(spec('teamRole: editor', 'modules: { auth: true, tenancy: true }\n'), {
      line: 6,
      column: 64,
      message: "routes.a.meta.teamRole: 'editor' is not a role of modules.tenancy.roles",
      hint: /owner, admin, member/,
    });
  });
});

describe('meta.can with modules.tenancy', () => {
  it('accepts declared permissions, tenant:members (declared by default) and the opt-off false', async () => {
    const ir = await load(spec("can: ['notes:delete', 'tenant:members']"));
    expect(ir.routes[0]!.meta.can).toEqual(['notes:delete', 'tenant:members']);
    await expect(
      load(spec("can: 'tenant:members'", 'modules: { auth: true, tenancy: true }\n')),
    ).resolves.toBeDefined();
    await expect(load(spec('can: false'))).resolves.toBeDefined();
  });

  it('accepts a permission declared for no role (the application grants it in code)', async () => {
    const ir = await load(
      spec(
        "can: 'billing:export'",
        "modules:\n  auth: true\n  tenancy: { permissions: { 'billing:export': [] } }\n",
      ),
    );
    expect(ir.moduleSettings.tenancy?.permissions['billing:export']).toEqual([]);
  });

  it('refuses a permission not declared, naming the declared ones', async () => {
    await expectOnly(spec("can: 'notes:delte'"), {
      ...VALUE('can'),
      path: 'routes.a.meta.can',
      message:
        "routes.a.meta.can: permission 'notes:delte' is not declared under modules.tenancy.permissions",
      hint: "did you mean 'notes:delete'? the declared permissions: tenant:members, notes:delete; or declare it with the roles granted it: permissions: { 'notes:delte': [<roles>] } ([] when only the application's authorize check grants it)",
    });
  });

  it('refuses each undeclared permission of a list, at its item', async () => {
    const result = await problemsOf(spec("can: ['notes:delete', 'notes:purge', billing]"));
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual([
      '11:76 routes.a.meta.can.1',
      '11:91 routes.a.meta.can.2',
    ]);
    expect(result.problems[1]!.hint).toBe(
      "the declared permissions: tenant:members, notes:delete; or declare it with the roles granted it: permissions: { 'billing': [<roles>] } ([] when only the application's authorize check grants it)",
    );
  });

  it.each([
    ['can: 42', 'routes.a.meta.can: expected false or a permission or a list of permissions but got 42'],
    ['can: []', 'routes.a.meta.can: must list at least 1 item(s)'],
    ["can: ''", 'routes.a.meta.can: must not be empty'],
  ])('refuses %s, once, with a message saying what is wanted', async (meta, message) => {
    await expectOnly(spec(meta), { ...VALUE('can'), message });
  });

  it('names the permission in the hint of a value of the wrong type', async () => {
    await expectOnly(spec('can: 42'), {
      ...VALUE('can'),
      message: /but got 42$/,
      hint: "name a permission of modules.tenancy.permissions, or a list of them, e.g. can: 'notes:delete'",
    });
  });
});

describe('tenancy meta keys with the module off', () => {
  it('refuses teamRole, can and central at the key, and checks no role or permission', async () => {
    const result = await problemsOf(
      spec('teamRole: nobody, can: nothing, central: true', 'modules: { auth: true }\n'),
    );
    expect(result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'routes.a.meta.teamRole: routes.a.meta.teamRole needs the tenancy module, which this spec does not enable: nothing would enforce it',
      'routes.a.meta.can: routes.a.meta.can needs the tenancy module, which this spec does not enable: nothing would enforce it',
      'routes.a.meta.central: routes.a.meta.central needs the tenancy module, which this spec does not enable: nothing would enforce it',
    ]);
  });
});
