// Boot checks as pure functions: guarded meta keys, meta validators, route conflicts, the core validator.
import { describe, expect, it } from 'vitest';
import {
  checkGuardedMeta,
  checkRouteConflicts,
  checkRouteMeta,
  coreMetaValidator,
  GUARDED_META_KEYS,
  isRouteVisible,
  route,
  type RequestContext,
  type Route,
} from 'svckit';

const make = (meta: Route['meta'], url = '/a', method: Route['method'] = 'GET'): Route =>
  route({ method, url, meta, handler: () => null });

describe('checkGuardedMeta', () => {
  it.each(GUARDED_META_KEYS)('refuses an unclaimed %s', (key) => {
    expect(() => checkGuardedMeta([make({ [key]: true })], { claims: [] })).toThrow(
      expect.objectContaining({ code: 'HTTP_UNGUARDED_ROUTE_META', unguarded: [{ route: 'GET /a', key }] }),
    );
  });

  it('lists every unguarded route and key in one error', () => {
    try {
      checkGuardedMeta([make({ auth: true, scopes: ['x'] }), make({ can: 'notes:read' }, '/b')], {
        claims: [],
      });
      expect.unreachable();
    } catch (error) {
      expect((error as { unguarded: unknown }).unguarded).toEqual([
        { route: 'GET /a', key: 'auth' },
        { route: 'GET /a', key: 'scopes' },
        { route: 'GET /b', key: 'can' },
      ]);
      expect((error as Error).message).toContain('GET /b meta.can');
    }
  });

  it('boots when a plugin claimed the key', () => {
    expect(() =>
      checkGuardedMeta([make({ auth: true })], { claims: [{ key: 'auth', plugin: 'auth' }] }),
    ).not.toThrow();
  });

  it('refuses guarded meta on an edge route even when a plugin claimed the key: no guard runs there', () => {
    const edge: Route = { ...make({ auth: true }, '/metrics'), edge: true };
    expect(() => checkGuardedMeta([edge], { claims: [{ key: 'auth', plugin: 'auth' }] })).toThrow(
      expect.objectContaining({ code: 'HTTP_UNGUARDED_ROUTE_META' }),
    );
    expect(() =>
      checkGuardedMeta([{ ...edge, meta: { auth: false } }], { claims: [{ key: 'auth', plugin: 'auth' }] }),
    ).not.toThrow();
    expect(() => checkGuardedMeta([edge], { claims: [], allowUnguardedMeta: ['auth'] })).not.toThrow();
  });

  it('never flags false or undefined (opt-offs)', () => {
    expect(() =>
      checkGuardedMeta([make({ apiKey: false, mfa: false, auth: undefined })], { claims: [] }),
    ).not.toThrow();
  });

  it('does not guard central, account, rateLimit, etag, mcp, summary', () => {
    const meta = {
      central: true,
      account: true,
      rateLimit: { limit: 1 },
      etag: true,
      mcp: true,
      summary: 's',
    };
    expect(() => checkGuardedMeta([make(meta)], { claims: [] })).not.toThrow();
  });

  it('guards keys plugins declare in http:guarded-meta-keys', () => {
    expect(() =>
      checkGuardedMeta([make({ tenantAdmin: true })], { claims: [], extraKeys: ['tenantAdmin'] }),
    ).toThrow(/tenantAdmin/);
  });

  it('allowUnguardedMeta: true waives every key', () => {
    expect(() =>
      checkGuardedMeta([make({ auth: true, can: 'x' })], { claims: [], allowUnguardedMeta: true }),
    ).not.toThrow();
  });

  it('allowUnguardedMeta: a list waives only the named keys', () => {
    const routes = [make({ auth: true, scopes: ['x'] })];
    expect(() =>
      checkGuardedMeta(routes, { claims: [], allowUnguardedMeta: ['auth', 'scopes'] }),
    ).not.toThrow();
    expect(() => checkGuardedMeta(routes, { claims: [], allowUnguardedMeta: ['auth'] })).toThrow(
      /meta\.scopes/,
    );
  });

  it('allowUnguardedMeta: false waives nothing', () => {
    expect(() =>
      checkGuardedMeta([make({ auth: true })], { claims: [], allowUnguardedMeta: false }),
    ).toThrow();
  });
});

describe('checkRouteMeta', () => {
  it('collects problems of every validator and route', () => {
    const validator = {
      name: 'team',
      validate: (r: Route) => (r.meta.teamRole === 'boss' ? ['unknown role boss'] : []),
    };
    try {
      checkRouteMeta([make({ teamRole: 'boss' }), make({ teamRole: 'boss' }, '/b')], [validator]);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        code: 'HTTP_INVALID_ROUTE_META',
        problems: [
          { route: 'GET /a', problem: 'unknown role boss' },
          { route: 'GET /b', problem: 'unknown role boss' },
        ],
      });
    }
  });

  it('reports a validator that throws as a problem', () => {
    const validator = {
      name: 'broken',
      validate: () => {
        throw new Error('oops');
      },
    };
    expect(() => checkRouteMeta([make({})], [validator])).toThrow(/broken.*oops/);
  });
});

describe('coreMetaValidator', () => {
  const problems = (meta: Record<string, unknown>) => coreMetaValidator.validate(make(meta as Route['meta']));

  it('accepts the documented values', () => {
    expect(
      problems({
        etag: true,
        summary: 's',
        description: 'd',
        operationId: 'o',
        tags: ['t'],
        mcp: { name: 'get_a', description: 'x', redactErrorDetails: false },
      }),
    ).toEqual([]);
    expect(problems({ mcp: true, etag: false, documentHeaders: true })).toEqual([]);
  });

  it.each([
    [{ etag: 'yes' }, 'meta.etag must be a boolean'],
    [{ documentHeaders: 'yes' }, 'meta.documentHeaders must be a boolean'],
    [{ summary: 1 }, 'meta.summary must be a string'],
    [{ operationId: {} }, 'meta.operationId must be a string'],
    [{ tags: 'a' }, 'meta.tags must be an array of strings'],
    [{ tags: [1] }, 'meta.tags must be an array of strings'],
    [{ mcp: 'yes' }, 'meta.mcp must be true or an object'],
    [{ mcp: { nme: 'x' } }, 'meta.mcp.nme is not a known field'],
    [{ mcp: { name: 'has space' } }, 'meta.mcp.name must be'],
    [{ mcp: { redactErrorDetails: 'no' } }, 'meta.mcp.redactErrorDetails must be false or a function'],
  ])('refuses %j', (meta, message) => {
    expect(problems(meta).join(' ')).toContain(message);
  });

  it('does not validate rateLimit or can', () => {
    expect(problems({ rateLimit: 'lots', can: 42 })).toEqual([]);
  });
});

describe('checkRouteConflicts', () => {
  it('refuses the same method and path twice, parameter names ignored', () => {
    expect(() => checkRouteConflicts([make({}, '/a/:id'), make({}, '/a/:name')])).toThrow(
      expect.objectContaining({ code: 'HTTP_ROUTE_CONFLICT' }),
    );
  });

  it('allows the same path with another method, and paths differing by case or trailing slash', () => {
    expect(() =>
      checkRouteConflicts([make({}, '/a'), make({}, '/a', 'POST'), make({}, '/A'), make({}, '/a/')]),
    ).not.toThrow();
  });
});

describe('isRouteVisible', () => {
  const context = { requestId: 'r', correlationId: 'r', container: undefined } as RequestContext;
  const target = make({ auth: true });

  it('is visible when every check agrees', () => {
    expect(isRouteVisible(target, context, [{ name: 'a', isVisible: () => true }])).toBe(true);
    expect(isRouteVisible(target, context, [])).toBe(true);
  });

  it('is hidden when one check says no', () => {
    const checks = [
      { name: 'a', isVisible: () => true },
      {
        name: 'auth',
        isVisible: (r: Route, c: RequestContext) => r.meta.auth !== true || c.user !== undefined,
      },
    ];
    expect(isRouteVisible(target, context, checks)).toBe(false);
    expect(isRouteVisible(target, { ...context, user: { id: 1 } }, checks)).toBe(true);
  });

  it('is hidden when a check throws (fail closed)', () => {
    const checks = [
      {
        name: 'broken',
        isVisible: () => {
          throw new Error('x');
        },
      },
    ];
    expect(isRouteVisible(target, context, checks)).toBe(false);
  });
});
