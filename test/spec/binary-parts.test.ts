// Upload and raw bodies and streamed responses in the spec language: what loads into the IR, and every
// mistake with its file, line, column, message and hint.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, expectProblem, load, problemsOf } from './helpers.js';

/** `routes:` is line 4, the route id line 5, its keys from line 6 (method 6, path 7, body 8). */
const routes = (body: string) => `${HEAD}routes:\n${body}`;
/** One POST route `a` whose body is the given block, indented under `body:` (which is on line 8). */
const postBody = (block: string, method = 'POST') =>
  routes(
    `  a:\n    method: ${method}\n    path: /a\n    body:\n${block
      .trim()
      .split('\n')
      .map((line) => `      ${line}`)
      .join('\n')}\n`,
  );

describe('upload bodies', () => {
  it('load with every option, sizes in bytes and media types lower-cased', async () => {
    const ir = await load(
      postBody(`upload:
  maxBytes: 25MiB
  maxFiles: 5
  maxFileBytes: 10MB
  maxFields: 8
  maxFieldBytes: 64KiB
  maxHeaderBytes: 4096
  allowedTypes: [image/png, 'Image/*', '*/*']
  fields: { type: object, properties: { title: { type: string } }, required: [title] }`),
    );
    expect(ir.routes[0]!.body).toEqual({
      kind: 'upload',
      limits: {
        maxBytes: 26214400,
        maxFiles: 5,
        maxFileBytes: 10000000,
        maxFields: 8,
        maxFieldBytes: 65536,
        maxHeaderBytes: 4096,
        allowedTypes: ['image/png', 'image/*', '*/*'],
      },
      fields: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    });
  });

  it('need only maxBytes and maxFiles, take fields by resource name, and work on PUT and PATCH', async () => {
    const spec = `${HEAD}resources:
  Caption: { type: object, properties: { text: { type: string } } }
routes:
  a: { method: PUT, path: /a, body: { upload: { maxBytes: 1024, maxFiles: 0 } } }
  b: { method: PATCH, path: /b, body: { upload: { maxBytes: '1.5 MiB', maxFiles: 1, fields: Caption } } }
`;
    const ir = await load(spec);
    expect(ir.routes[0]!.body).toEqual({ kind: 'upload', limits: { maxBytes: 1024, maxFiles: 0 } });
    expect(ir.routes[1]!.body).toEqual({
      kind: 'upload',
      limits: { maxBytes: 1572864, maxFiles: 1 },
      fields: { $ref: '#/resources/Caption' },
    });
  });

  it('take sizes from environment references, resolved at build time', async () => {
    const ir = await load(postBody("upload: { maxBytes: '${UPLOAD_LIMIT:-2MiB}', maxFiles: 1 }"), {
      UPLOAD_LIMIT: '3MB',
    });
    expect(ir.routes[0]!.body).toMatchObject({ limits: { maxBytes: 3000000 } });
  });

  it('require maxBytes and maxFiles, and refuse unknown options with a did-you-mean', async () => {
    const result = await problemsOf(postBody('upload:\n  maxBytes: 1MiB\n  maxFile: 5'));
    expect(result.problems).toHaveLength(1);
    expectProblem(result, {
      line: 11,
      column: 9,
      message: "unknown key 'maxFile' in routes.a.body.upload",
      hint: "did you mean 'maxFiles'?",
      path: 'routes.a.body.upload.maxFile',
    });
    await expectOnly(postBody('upload:\n  maxFiles: 5'), {
      line: 10,
      column: 9,
      message: "missing required key 'maxBytes' in routes.a.body.upload",
      hint: 'add maxBytes: 25MiB',
    });
    await expectOnly(postBody('upload: { maxBytes: 1MiB }'), {
      line: 9,
      column: 15,
      message: "missing required key 'maxFiles' in routes.a.body.upload",
    });
  });

  it('refuses a size it cannot read, naming the option, and says when only the case of the unit is wrong', async () => {
    await expectOnly(postBody('upload: { maxBytes: 25 megabytes, maxFiles: 1 }'), {
      line: 9,
      column: 27,
      message:
        "routes.a.body.upload.maxBytes: expected a number of bytes or a size such as 25MiB, 10MB or 64KiB but got '25 megabytes'",
      hint: 'write e.g. maxBytes: 25MiB (1024-based units KiB, MiB, GiB; 1000-based KB, MB, GB; or plain bytes)',
      path: 'routes.a.body.upload.maxBytes',
    });
    await expectOnly(postBody('upload: { maxBytes: 25mib, maxFiles: 1 }'), {
      line: 9,
      column: 27,
      message: /maxBytes: expected a number of bytes .* but got '25mib'$/,
      hint: 'units are case-sensitive: write maxBytes: 25MiB',
    });
    const result = await problemsOf(
      postBody(
        'upload: { maxBytes: 0, maxFiles: 1, maxFileBytes: 1.5, maxFieldBytes: -2, maxHeaderBytes: 1.1B }',
      ),
    );
    expect(result.problems).toHaveLength(4);
    expectProblem(result, {
      line: 9,
      column: 27,
      message: 'routes.a.body.upload.maxBytes: expected a size of at least 1 byte but got 0',
      hint: 'write a size of at least one byte, e.g. 64KiB',
    });
    expectProblem(result, { line: 9, column: 57, message: /maxFileBytes: expected .* but got 1\.5$/ });
    expectProblem(result, { line: 9, column: 77, message: /maxFieldBytes: expected .* but got -2$/ });
    // 1.1 bytes is not a whole number of bytes.
    expectProblem(result, { line: 9, column: 97, message: /maxHeaderBytes: expected .* but got '1\.1B'$/ });
  });

  it('refuses per-file and per-field limits above the whole body, which could never apply', async () => {
    const result = await problemsOf(
      postBody('upload: { maxBytes: 1MiB, maxFiles: 1, maxFileBytes: 2MiB, maxFieldBytes: 1MiB }'),
    );
    expect(result.problems).toHaveLength(1);
    expectProblem(result, {
      line: 9,
      column: 60,
      message:
        'routes.a.body.upload.maxFileBytes: 2 MiB is more than maxBytes (1 MiB), so this limit can never apply',
      hint: 'lower maxFileBytes to at most maxBytes, or remove it',
    });
    await expectOnly(postBody('upload: { maxBytes: 1KiB, maxFiles: 1, maxFieldBytes: 2000 }'), {
      line: 9,
      column: 61,
      message:
        'routes.a.body.upload.maxFieldBytes: 2 KB is more than maxBytes (1 KiB), so this limit can never apply',
      hint: 'lower maxFieldBytes to at most maxBytes, or remove it',
    });
  });

  it('refuses counts that are not non-negative integers', async () => {
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: -1 }'), {
      line: 9,
      column: 43,
      message: 'routes.a.body.upload.maxFiles: expected an integer of at least 0 but got -1',
    });
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1, maxFields: five }'), {
      line: 9,
      column: 57,
      message: "routes.a.body.upload.maxFields: expected an integer but got 'five'",
    });
  });

  it('wants allowedTypes to be a list of media types or ranges without parameters, each once', async () => {
    const result = await problemsOf(
      postBody(
        "upload: { maxBytes: 1MiB, maxFiles: 1, allowedTypes: [png, 'text/plain; charset=utf-8', '*/png', image/png, IMAGE/PNG, 7] }",
      ),
    );
    expect(result.problems).toHaveLength(5);
    expectProblem(result, {
      line: 9,
      column: 61,
      message: "routes.a.body.upload.allowedTypes.0: 'png' is not a media type",
      hint: 'write a media type such as image/png, or a range such as image/*',
    });
    expectProblem(result, {
      line: 9,
      column: 66,
      message: "routes.a.body.upload.allowedTypes.1: 'text/plain; charset=utf-8' is not a media type",
      hint: 'write it without parameters: text/plain',
    });
    expectProblem(result, {
      line: 9,
      column: 95,
      message: /allowedTypes\.2: '\*\/png' is not a media type$/,
    });
    expectProblem(result, {
      line: 9,
      column: 115,
      message: "routes.a.body.upload.allowedTypes: 'IMAGE/PNG' is listed twice (media types ignore case)",
      hint: "remove the repeated 'IMAGE/PNG'",
    });
    expectProblem(result, {
      line: 9,
      column: 126,
      message: 'routes.a.body.upload.allowedTypes.5: expected a media type but got 7',
    });
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1, allowedTypes: image/png }'), {
      line: 9,
      column: 60,
      message: "routes.a.body.upload.allowedTypes: expected a list of media types but got 'image/png'",
      hint: 'write a list: allowedTypes: [image/png]',
    });
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1, allowedTypes: [] }'), {
      line: 9,
      column: 60,
      message: 'routes.a.body.upload.allowedTypes: must list at least 1 item(s)',
    });
  });

  it('wants fields to be an object schema of string properties, and keeps the name files for the files', async () => {
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1, fields: { type: string } }'), {
      line: 9,
      column: 54,
      message: "routes.a.body.upload.fields: the upload's fields must be an object schema",
      hint: 'write fields: { type: object, properties: { title: { type: string } } }',
    });
    const result = await problemsOf(
      postBody(`upload:
  maxBytes: 1MiB
  maxFiles: 1
  fields:
    type: object
    properties:
      age: { type: integer }
      files: { type: string }
      note: { type: string }`),
    );
    expect(result.problems).toHaveLength(2);
    expectProblem(result, {
      line: 15,
      column: 13,
      message: "upload field 'age' must be a string schema: multipart text fields always arrive as text",
      hint: 'write age: { type: string }, with a pattern or enum for the values you accept',
      path: 'routes.a.body.upload.fields.properties.age',
    });
    expectProblem(result, {
      line: 16,
      column: 13,
      message: "upload field 'files' is reserved: openapi.json documents the file parts under 'files'",
      hint: 'rename the text field',
    });
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1, fields: Captoin }'), {
      line: 9,
      column: 54,
      message: "unknown resource 'Captoin'",
    });
  });

  it('checks the fields schema like any embedded schema', async () => {
    await expectOnly(
      postBody('upload: { maxBytes: 1MiB, maxFiles: 1, fields: { type: object, propertys: {} } }'),
      { line: 9, column: 70, message: "unknown schema keyword 'propertys' in routes.a.body.upload.fields" },
    );
  });

  it('refuses other keys beside upload, and a value that is not a mapping', async () => {
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1 }\nrequired: false'), {
      line: 10,
      column: 7,
      message: "unknown key 'required' in routes.a.body",
      hint: 'allowed keys: upload',
    });
    await expectOnly(postBody('upload: 10MiB'), {
      line: 9,
      column: 15,
      message: "routes.a.body.upload: expected upload options but got '10MiB'",
    });
  });

  it('are only for POST, PUT and PATCH', async () => {
    for (const method of ['DELETE', 'OPTIONS']) {
      await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1 }', method), {
        line: 9,
        column: 7,
        message: `upload bodies are only for POST, PUT and PATCH routes, not ${method}`,
        hint: 'use method: POST, or send the data another way',
        path: 'routes.a.body.upload',
      });
    }
    await expectOnly(postBody('upload: { maxBytes: 1MiB, maxFiles: 1 }', 'GET'), {
      line: 8,
      column: 5,
      message: 'GET routes cannot have a body',
    });
  });
});

describe('raw bodies', () => {
  it('load with and without options', async () => {
    const spec = routes(`  a: { method: POST, path: /a, body: { raw: {} } }
  b: { method: PUT, path: /b, body: { raw: { maxBytes: 64KiB, contentTypes: [Application/JSON, 'text/*'] } } }
`);
    const ir = await load(spec);
    expect(ir.routes[0]!.body).toEqual({ kind: 'raw' });
    expect(ir.routes[1]!.body).toEqual({
      kind: 'raw',
      maxBytes: 65536,
      contentTypes: ['application/json', 'text/*'],
    });
  });

  it('refuse unknown options, bad sizes and bad media types', async () => {
    const result = await problemsOf(
      postBody('raw: { maxBytes: 1 mega, contentType: [application/json], contentTypes: [json] }'),
    );
    expect(result.problems).toHaveLength(3);
    expectProblem(result, { line: 9, column: 24, message: /raw\.maxBytes: expected .* but got '1 mega'$/ });
    expectProblem(result, {
      line: 9,
      column: 32,
      message: "unknown key 'contentType' in routes.a.body.raw",
      hint: "did you mean 'contentTypes'?",
    });
    expectProblem(result, {
      line: 9,
      column: 80,
      message: "routes.a.body.raw.contentTypes.0: 'json' is not a media type",
    });
  });

  it('want a mapping: raw: {} for the defaults', async () => {
    await expectOnly(postBody('raw:'), {
      line: 9,
      column: 11,
      message: 'routes.a.body.raw: expected raw body options but got nothing',
      hint: 'write raw: {} for the defaults',
    });
  });

  it('are only for POST, PUT and PATCH', async () => {
    await expectOnly(postBody('raw: {}', 'DELETE'), {
      line: 9,
      column: 7,
      message: 'raw bodies are only for POST, PUT and PATCH routes, not DELETE',
    });
  });
});

describe('streamed responses', () => {
  it('load as { stream: <media type> }, lower-cased, beside JSON responses', async () => {
    const spec = routes(`  a:
    method: GET
    path: /a
    response:
      200: { type: object }
      206: { stream: Video/* }
  b: { method: GET, path: /b, response: { 200: { stream: text/event-stream } } }
`);
    const ir = await load(spec);
    expect(ir.routes[0]!.responses).toEqual({ 200: { type: 'object' }, 206: { stream: 'video/*' } });
    expect(ir.routes[1]!.responses).toEqual({ 200: { stream: 'text/event-stream' } });
  });

  it('are success responses only, of one media type, with no other key', async () => {
    const result = await problemsOf(
      routes(`  a:
    method: GET
    path: /a
    response:
      200: { stream: pdf, inline: true }
      404: { stream: application/json }
      206: { stream: }
`),
    );
    expect(result.problems).toHaveLength(4);
    expectProblem(result, {
      line: 9,
      column: 22,
      message: "routes.a.response.200.stream: 'pdf' is not a media type",
      hint: 'write a media type such as image/png, or a range such as image/*',
    });
    expectProblem(result, {
      line: 9,
      column: 27,
      message: "unknown key 'inline' in routes.a.response.200",
      hint: 'allowed keys: stream',
    });
    expectProblem(result, {
      line: 10,
      column: 14,
      message: 'status 404 cannot be streamed: only success (2xx) responses can',
      hint: 'declare the stream under 200, and describe the 404 body with a schema',
    });
    expectProblem(result, {
      line: 11,
      column: 22,
      message: /206\.stream: expected a media type but got nothing$/,
    });
  });

  it('keep the rule that 204 has no body', async () => {
    await expectOnly(routes('  a: { method: GET, path: /a, response: { 204: { stream: text/plain } } }\n'), {
      line: 5,
      column: 48,
      message: 'status 204 never has a body',
    });
  });
});

describe('MCP tools', () => {
  it('cannot be made of upload, raw or streaming routes', async () => {
    const result = await problemsOf(
      routes(`  a:
    method: POST
    path: /a
    body: { upload: { maxBytes: 1MiB, maxFiles: 1 } }
    meta: { mcp: true }
  b:
    method: POST
    path: /b
    body: { raw: {} }
    meta: { mcp: { name: hook } }
  c:
    method: GET
    path: /c
    response: { 200: { stream: application/pdf } }
    meta: { mcp: true }
modules:
  mcp: true
`),
    );
    expect(result.problems).toHaveLength(3);
    expectProblem(result, {
      line: 9,
      column: 18,
      message:
        "route 'a' has an upload (multipart) body, which an MCP tool 'post_a' cannot take: tool arguments are JSON",
      hint: 'remove meta.mcp, or expose a JSON route for agents beside this one',
      path: 'routes.a.meta.mcp',
    });
    expectProblem(result, {
      line: 14,
      column: 18,
      message: "route 'b' has a raw body, which an MCP tool 'hook' cannot take: tool arguments are JSON",
    });
    expectProblem(result, {
      line: 19,
      column: 18,
      message:
        "route 'c' streams its 200 response, which an MCP tool 'get_c' cannot return: tool results are JSON or text",
    });
  });
});
