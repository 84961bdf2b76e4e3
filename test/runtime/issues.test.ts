// ajv errors → issues: dot paths, property-level required/additional, no values echoed, capped.
import { describe, expect, it } from 'vitest';
import { createAjv, MAX_VALIDATION_ISSUES, toIssues } from 'svckit';
import type { CompiledValidator } from 'svckit';

function issuesFor(schema: object, data: unknown) {
  const validate = createAjv().compile(schema) as CompiledValidator;
  expect(validate(data)).toBe(false);
  return toIssues(validate.errors);
}

describe('toIssues', () => {
  it('reports nested paths dot-joined', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    };
    expect(issuesFor(schema, { items: [{ name: 'ok' }, { name: 5 }] })).toEqual([
      { path: 'items.1.name', message: 'must be string' },
    ]);
  });

  it('reports the root as the empty path', () => {
    expect(issuesFor({ type: 'object' }, 'text')).toEqual([{ path: '', message: 'must be object' }]);
  });

  it('reports a missing required property at its own path', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        meta: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      },
      required: ['meta', 'id'],
    };
    expect(issuesFor(schema, { meta: {} })).toEqual([
      { path: 'id', message: 'is required' },
      { path: 'meta.title', message: 'is required' },
    ]);
  });

  it('reports an additional property at its own path', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(issuesFor(schema, { a: 'x', isAdmin: true })).toEqual([
      { path: 'isAdmin', message: 'is not allowed' },
    ]);
  });

  it('unescapes JSON pointer segments', () => {
    const schema = { type: 'object', properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } } };
    expect(issuesFor(schema, { 'a/b': 1, 'c~d': 2 })).toEqual([
      { path: 'a/b', message: 'must be string' },
      { path: 'c~d', message: 'must be string' },
    ]);
  });

  it('never echoes the rejected value', () => {
    const schema = {
      type: 'object',
      properties: { role: { enum: ['user'] }, code: { const: 'A' }, n: { type: 'number', maximum: 3 } },
    };
    const issues = issuesFor(schema, { role: 'sup3r-s3cret', code: 'sup3r-s3cret', n: 987654 });
    expect(JSON.stringify(issues)).not.toContain('sup3r-s3cret');
    expect(JSON.stringify(issues)).not.toContain('987654');
  });

  it(`caps the issues at ${MAX_VALIDATION_ISSUES}`, () => {
    const schema = { type: 'array', items: { type: 'integer' } };
    expect(
      issuesFor(
        schema,
        Array.from({ length: 100 }, () => 'x'),
      ),
    ).toHaveLength(MAX_VALIDATION_ISSUES);
  });
});
