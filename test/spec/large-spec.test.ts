// A 200-route spec loads completely (schemas that repeat are compiled once; every route still gets its own
// normalised parts). Timing is measured by hand, never asserted here.
import { describe, expect, it } from 'vitest';
import { HEAD, load, problemsOf } from './helpers.js';

function bigSpec(routes: number, extra = ''): string {
  const lines = [HEAD.trimEnd(), 'resources:'];
  for (let i = 0; i < 20; i++) {
    lines.push(
      `  Thing${i}:`,
      '    type: object',
      `    properties: { id: { type: string, format: uuid }, next: { $ref: '#/resources/Thing${(i + 1) % 20}' } }`,
    );
  }
  lines.push('routes:');
  for (let i = 0; i < routes; i++) {
    lines.push(
      `  get${i}:`,
      '    method: GET',
      `    path: /things${i}/:id`,
      '    params: { id: { type: string, format: uuid } }',
      '    query: { limit: { type: integer, minimum: 1, maximum: 100, default: 20 } }',
      `    response: { 200: Thing${i % 20} }`,
      '    meta: { mcp: true }',
    );
  }
  // Every route is an MCP tool, so the mcp module is on (after the routes: their lines stay put).
  return `${lines.join('\n')}\nmodules:\n  mcp: true\n${extra}`;
}

describe('a 200-route spec', () => {
  it('loads every route with its own parts', async () => {
    const ir = await load(bigSpec(200));
    expect(ir.routes).toHaveLength(200);
    expect(ir.resources).toHaveLength(20);
    expect(ir.routes[199]).toMatchObject({
      id: 'get199',
      path: '/things199/:id',
      params: { required: ['id'] },
      query: { properties: { limit: { default: 20 } } },
      responses: { 200: { $ref: '#/resources/Thing19' } },
    });
    expect(ir.routes[0]!.query).not.toBe(ir.routes[1]!.query);
  });

  it('still reports a mistake in a repeated schema at each place it occurs', async () => {
    const spec = bigSpec(3).replace(/minimum: 1, /g, 'minimum: x, ');
    const result = await problemsOf(spec);
    expect(result.problems.map((p) => p.path)).toEqual([
      'routes.get0.query.limit.minimum',
      'routes.get1.query.limit.minimum',
      'routes.get2.query.limit.minimum',
    ]);
  });
});
