// `${VAR}` / `${VAR:-default}` substitution: shell semantics, re-reading whole references as YAML scalars,
// errors at the reference's position, and templates kept for the runtime config.
import { describe, expect, it } from 'vitest';
import { MissingEnvError, parseTemplate, rereadScalar, resolveConfig, resolveTemplate } from 'svckit/spec';
import { HEAD, expectOnly, expectProblem, load, problemsOf } from './helpers.js';

const withSummary = (value: string) =>
  `${HEAD}routes:\n  a:\n    method: GET\n    path: /a\n    meta:\n      summary: ${value}\n`;

describe('substitution in the loader', () => {
  it('uses the variable, or the default when it is unset or empty', async () => {
    const summaryOf = async (value: string, env: Record<string, string | undefined>) =>
      (await load(withSummary(value), env)).routes[0]!.meta.summary;
    expect(await summaryOf('Hello ${WHO:-world}', { WHO: 'you' })).toBe('Hello you');
    expect(await summaryOf('Hello ${WHO:-world}', {})).toBe('Hello world');
    expect(await summaryOf('Hello ${WHO:-world}', { WHO: '' })).toBe('Hello world');
    expect(await summaryOf('Hello ${WHO}!', { WHO: '' })).toBe('Hello !');
    expect(await summaryOf('"${A:-}${B:-b}"', {})).toBe('b');
  });

  it('keeps $${ as a literal ${ and never substitutes inside it', async () => {
    const ir = await load(withSummary('"costs $${PRICE} in ${CUR:-EUR}"'), { PRICE: '10' });
    expect(ir.routes[0]!.meta.summary).toBe('costs ${PRICE} in EUR');
  });

  it('gives a whole reference the type its key expects, quoted or not', async () => {
    const ir = await load(
      `${HEAD}routes: {}\nserver: { port: '\${PORT:-3000}', host: '\${HOST:-0}' }\nstores:\n  database: \${DB:-123}\n`,
      { PORT: '8080' },
    );
    expect(ir.config.server).toMatchObject({
      port: { $template: [{ env: 'PORT', default: '3000' }], reread: true },
      host: { $template: [{ env: 'HOST', default: '0' }] },
    });
    expect(ir.config.stores).toEqual({ database: { $template: [{ env: 'DB', default: '123' }] } });
    expect(resolveConfig(ir.config.server!, { PORT: '8080', HOST: '1' })).toEqual({
      adapter: 'fastify',
      port: 8080,
      host: '1',
      entry: 'src/server.ts',
    });
  });

  it('re-reads a whole reference as a YAML scalar where the key takes more than text', async () => {
    const ir = await load(
      `${HEAD}routes:\n  a:\n    method: GET\n    path: /a\n    meta: { flag: '\${FLAG:-true}', level: '\${LEVEL:-3}', summary: '\${SUMMARY:-42}' }\nmetaKeys:\n  flag: {}\n  level: { schema: { type: integer } }\n`,
    );
    expect(ir.routes[0]!.meta).toEqual({ flag: true, level: 3, summary: '42' });
  });

  it('validates the value a reference resolves to at build time', async () => {
    await expectOnly(
      `${HEAD}routes: {}\nserver:\n  port: \${PORT:-3000}\n`,
      {
        line: 6,
        column: 9,
        message: "server.port: expected an integer but got 'eighty' (from ${PORT:-3000})",
        hint: 'PORT must give an integer: set it, or change the default in ${PORT:-3000}',
      },
      { PORT: 'eighty' },
    );
  });

  it('reports an unset variable without default at the reference', async () => {
    await expectOnly(`${HEAD}routes: {}\nstores:\n  database: postgres://\${DB_HOST}/app\n`, {
      line: 6,
      column: 24,
      message: 'environment variable DB_HOST is not set',
      hint: 'set DB_HOST, or write ${DB_HOST:-<default>}',
      path: 'stores.database',
    });
  });

  it('reports malformed references', async () => {
    const result = await problemsOf(
      `${HEAD}routes:\n  a:\n    method: GET\n    path: /a\n    meta:\n      summary: "\${}"\n      description: "x \${1X}"\n      tags: ["\${OPEN"]\n`,
    );
    expectProblem(result, {
      line: 9,
      column: 17,
      message: "empty reference '${}'",
      hint: 'name a variable: ${PORT} or ${PORT:-3000}',
    });
    expectProblem(result, {
      line: 10,
      column: 23,
      message: "invalid variable name '1X' in '${1X}'",
      hint: 'variable names are letters, digits and _, not starting with a digit; defaults are written ${NAME:-default}',
    });
    expectProblem(result, {
      line: 11,
      column: 15,
      message: "unclosed reference '${OPEN'",
      hint: 'close it with } or write $${ for a literal ${',
    });
  });

  it('explains that references inside flow collections need quotes', async () => {
    await expectOnly(`${HEAD}routes: {}\nserver: { port: \${PORT:-3000} }\n`, {
      line: 5,
      column: 18,
      message: 'invalid YAML: Unexpected flow-map-start at node end',
      hint: "inside { } and [ ], quote references: port: '${PORT:-3000}'",
    });
  });

  it('never substitutes in keys', async () => {
    await expectOnly(
      `${HEAD}routes: {}\n\${KEY}: 1\n`,
      { line: 5, column: 1, message: "unknown key '${KEY}' at the top level" },
      { KEY: 'name' },
    );
  });
});

describe('env-template', () => {
  it('splits text and references', () => {
    expect(parseTemplate('a${X}b${Y:-d}$${Z}')).toEqual({
      ok: true,
      hasReference: true,
      parts: ['a', { env: 'X' }, 'b', { env: 'Y', default: 'd' }, '${Z}'],
    });
    expect(parseTemplate('${X-y}')).toMatchObject({ ok: false, error: { index: 0 } });
  });

  it('resolves with shell semantics and throws for an unset variable without default', () => {
    expect(resolveTemplate([{ env: 'X', default: 'd' }], { X: '' })).toBe('d');
    expect(resolveTemplate([{ env: 'X' }], { X: '' })).toBe('');
    expect(() => resolveTemplate([{ env: 'X' }], {})).toThrow(MissingEnvError);
  });

  it('re-reads scalars like YAML 1.2 and keeps the empty string', () => {
    expect(rereadScalar('3000')).toBe(3000);
    expect(rereadScalar('1.5')).toBe(1.5);
    expect(rereadScalar('true')).toBe(true);
    expect(rereadScalar('null')).toBe(null);
    expect(rereadScalar('')).toBe('');
    expect(rereadScalar('yes')).toBe('yes');
    expect(rereadScalar('3000abc')).toBe('3000abc');
  });
});
