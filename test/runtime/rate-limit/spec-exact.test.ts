// `exact` in the spec (docs/spec.md): route `meta.rateLimit.exact` and `modules.edge.security.rateLimit.exact`
// are booleans; anything else is a build error at the value, and a valid one reaches the route meta.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, load } from '../../spec/helpers.js';

const EDGE = 'modules:\n  edge:\n    security: { rateLimit: { limit: 100, windowMs: 60000, exact: true } }\n';
const routeWith = (rateLimit: string) =>
  `${HEAD}routes:\n  a:\n    method: POST\n    path: /a\n    meta: { rateLimit: ${rateLimit} }\n${EDGE}`;

describe('rateLimit.exact in the spec', () => {
  it('accepts a boolean on a route and on the global limit, and keeps it in the route meta', async () => {
    const ir = await load(routeWith('{ limit: 5, windowMs: 1000, exact: true }'));
    const [route] = ir.routes;
    expect(route?.meta.rateLimit).toEqual({ limit: 5, windowMs: 1000, exact: true });
  });

  it('refuses a non-boolean on a route at file:line:col', async () => {
    await expectOnly(routeWith('{ limit: 5, windowMs: 1000, exact: yes }'), {
      line: 8,
      column: 59,
      message: "routes.a.meta.rateLimit.exact: expected true or false but got 'yes'",
    });
  });

  it('refuses a non-boolean global exact at file:line:col', async () => {
    await expectOnly(
      `${HEAD}routes: {}\nmodules:\n  edge:\n    security: { rateLimit: { limit: 1, windowMs: 1, exact: 1 } }\n`,
      {
        line: 7,
        column: 60,
        message: 'modules.edge.security.rateLimit.exact: expected true or false but got 1',
      },
    );
  });
});
