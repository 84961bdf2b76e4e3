// Mistakes inside embedded JSON Schemas (resources, params, query, body, response, metaKeys) and in $refs.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, expectProblem, problemsOf } from './helpers.js';

/** A spec whose only resource is `Note`, with the given property lines (6-space indent) at line 8 on. */
function withNote(properties: string, extra = ''): string {
  return `${HEAD}routes: {}\nresources:\n  Note:\n    type: object\n    properties:\n${properties}${extra}`;
}

describe('schema keywords', () => {
  it('suggests the keyword meant', async () => {
    await expectOnly(withNote('      title: { type: string, minLenght: 1 }\n'), {
      line: 9,
      column: 30,
      message: "unknown schema keyword 'minLenght' in resources.Note.properties.title",
      hint: "did you mean 'minLength'?",
      path: 'resources.Note.properties.title.minLenght',
    });
  });

  it('explains OpenAPI 3.0 nullable', async () => {
    await expectOnly(withNote('      title: { type: string, nullable: true }\n'), {
      line: 9,
      column: 30,
      message: "unknown schema keyword 'nullable' in resources.Note.properties.title",
      hint: "nullable is OpenAPI 3.0; write type: [string, 'null'] instead",
    });
  });

  it('points at properties written without properties:', async () => {
    await expectOnly(
      `${HEAD}routes: {}\nresources:\n  Note:\n    type: object\n    title: { type: string }\n    owner: { type: string }\n`,
      {
        line: 9,
        column: 5,
        message: "unknown schema keyword 'owner' in resources.Note",
        hint: 'properties of an object go under properties:, e.g. properties: { owner: { type: string } }',
      },
    );
  });

  it('refuses x- keywords other than x-hint, and accepts x-hint', async () => {
    await expectOnly(withNote("      title: { type: string, x-hint: 'a title', x-label: x }\n"), {
      line: 9,
      column: 49,
      message: "unknown schema keyword 'x-label' in resources.Note.properties.title",
      hint: 'x-hint is the only supported x- keyword; remove it',
    });
  });

  it('names an unknown type and what to write instead', async () => {
    const result = await problemsOf(
      withNote('      a: { type: strin }\n      b: { type: int }\n      c: { type: date }\n'),
    );
    expectProblem(result, {
      line: 9,
      column: 18,
      message: "resources.Note.properties.a.type: unknown type 'strin'",
      hint: "did you mean 'string'?",
    });
    expectProblem(result, {
      line: 10,
      column: 18,
      message: "resources.Note.properties.b.type: unknown type 'int'",
      hint: 'write type: integer',
    });
    expectProblem(result, {
      line: 11,
      column: 18,
      message: "resources.Note.properties.c.type: unknown type 'date'",
      hint: 'write type: string, format: date',
    });
  });

  it('names an unknown format with the closest one, or the list of known formats', async () => {
    const result = await problemsOf(
      withNote('      a: { type: string, format: uid }\n      b: { type: string, format: phone-number }\n'),
    );
    expectProblem(result, {
      line: 9,
      column: 34,
      message: "resources.Note.properties.a.format: unknown format 'uid'",
      hint: "did you mean 'uuid'?",
    });
    const listed = expectProblem(result, {
      line: 10,
      column: 34,
      message: "resources.Note.properties.b.format: unknown format 'phone-number'",
    });
    expect(listed.hint).toMatch(/^known formats: date, time, date-time, .*email.*uuid/);
  });

  it('reports an invalid regular expression at the pattern', async () => {
    await expectOnly(withNote("      a: { type: string, pattern: '[a-' }\n"), {
      line: 9,
      column: 35,
      message: /^resources\.Note\.properties\.a\.pattern: invalid regular expression: /,
      hint: /^patterns are JavaScript regular expressions with the u flag/,
    });
  });

  it('reports a required name with no property, suggesting the one meant', async () => {
    await expectOnly(withNote('      title: { type: string }\n', '    required: [titel]\n'), {
      line: 10,
      column: 16,
      message: "resources.Note.required: required property 'titel' is not declared in properties",
      hint: "did you mean 'title'?",
    });
  });

  it('maps meta-schema errors onto the keyword value', async () => {
    await expectOnly(withNote('      title: { type: string, minLength: -1 }\n'), {
      line: 9,
      column: 41,
      message: 'resources.Note.properties.title.minLength: must be >= 0',
      hint: 'write a whole number of 0 or more, e.g. minLength: 1',
    });
  });

  it('compiles in ajv strict mode and locates what it refuses', async () => {
    await expectOnly(withNote('      n: { minimum: 1 }\n'), {
      line: 9,
      column: 10,
      message:
        "resources.Note.properties.n: keyword 'minimum' needs a type (svc compiles schemas in strict mode)",
      hint: 'add type: number next to minimum',
    });
  });

  it('refuses a default at the top of a query shorthand only where it has no effect', async () => {
    await expectOnly(
      `${HEAD}routes:\n  a:\n    method: POST\n    path: /a\n    body: { type: object, default: {} }\n`,
      {
        line: 8,
        column: 11,
        message: 'routes.a.body: a default at the top of this schema has no effect',
        hint: 'move default onto the properties it is for, or remove it',
      },
    );
  });

  it('refuses keywords that break the one-document model', async () => {
    await expectOnly(withNote("      a: { $id: 'x', type: string }\n"), {
      line: 9,
      column: 12,
      message: "resources.Note.properties.a: '$id' is not supported in svc schemas",
      hint: "schemas get their ids from svc; remove $id and reference a resource with $ref: '#/resources/<Name>'",
    });
  });
});

describe('$ref', () => {
  const refSpec = (ref: string) => withNote(`      a: { $ref: '${ref}' }\n`);

  it('suggests the resource meant', async () => {
    await expectOnly(refSpec('#/resources/Noet'), {
      line: 9,
      column: 18,
      message: "unknown resource 'Noet' in $ref",
      hint: "did you mean '#/resources/Note'?",
      path: 'resources.Note.properties.a.$ref',
    });
  });

  it('refuses remote references', async () => {
    await expectOnly(refSpec('https://example.com/note.json'), {
      line: 9,
      column: 18,
      message: "remote $ref 'https://example.com/note.json' is not allowed (svc never fetches schemas)",
      hint: "copy the schema under resources: and write $ref: '#/resources/<Name>'",
    });
  });

  it('refuses file references', async () => {
    await expectOnly(refSpec('../schemas/note.json#/Note'), {
      line: 9,
      column: 18,
      message: "file $ref '../schemas/note.json#/Note' is not allowed; references are local to this spec",
      hint: "write $ref: '#/resources/Note'",
    });
  });

  it('refuses other pointers and says how to reference a resource', async () => {
    await expectOnly(refSpec('#/components/schemas/Note'), {
      line: 9,
      column: 18,
      message: "$ref '#/components/schemas/Note' is not supported; only '#/resources/<Name>' references are",
      hint: "write $ref: '#/resources/Note'",
    });
  });

  it('resolves resource names used directly as body and response', async () => {
    const result = await problemsOf(
      `${HEAD}resources:\n  Note: { type: object }\nroutes:\n  a:\n    method: POST\n    path: /a\n    body: Noet\n    response: { 200: note }\n`,
    );
    expectProblem(result, {
      line: 10,
      column: 11,
      message: "unknown resource 'Noet'",
      hint: "did you mean 'Note'?",
    });
    expectProblem(result, {
      line: 11,
      column: 22,
      message: "routes.a.response.200: 'note' is not a resource name",
      hint: "did you mean 'Note'?",
    });
  });

  it('lets resources reference each other, even recursively', async () => {
    const result = await problemsOf(
      `${HEAD}resources:\n  Tree:\n    type: object\n    properties:\n      children: { type: array, items: { $ref: '#/resources/Tree' } }\n      owner: { $ref: '#/resources/User' }\n  User: { type: object, properties: { name: { type: string } } }\nroutes:\n  a: { method: GET, path: /a, response: { 200: Tree } }\n  b: { method: GET, path: /a }\n`,
    );
    // The only problem is the duplicate route: the references themselves are fine.
    expect(result.problems.map((p) => p.message)).toEqual(["GET /a is already routed by 'a'"]);
  });
});
