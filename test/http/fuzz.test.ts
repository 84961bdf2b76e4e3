// Property-based fuzzing of request bodies on every adapter, with fixed seeds so a failure reproduces:
// thousands of malformed JSON and multipart bodies must each get a 2xx or a 4xx envelope — never a 500, a
// hang or a crash — and the server must keep serving afterwards.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { route, upload, type ErrorReport, type UploadInput } from 'svckit';
import { adapters, withServer } from './harness.js';

// 500 bodies per adapter and test by default; FUZZ_RUNS=5000 for a deeper run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

const item = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 50 }, n: { type: 'integer' }, tags: { type: 'array' } },
  required: ['name'],
  additionalProperties: false,
} as const;

const routes = [
  route({ method: 'POST', url: '/json', body: item, handler: ({ body }) => body }),
  route<{ body: UploadInput }>({
    method: 'POST',
    url: '/upload',
    body: upload({
      maxBytes: 64 * 1024,
      maxFiles: 3,
      maxFields: 5,
      maxFieldBytes: 1024,
      maxHeaderBytes: 512,
    }),
    handler: async ({ body }) => {
      let bytes = 0;
      for await (const file of body.files)
        for await (const chunk of file.stream) bytes += (chunk as Buffer).length;
      return { bytes, fields: Object.keys(body.fields).length };
    },
  }),
];

const KNOWN_4XX = new Set([
  'BAD_REQUEST',
  'HTTP_VALIDATION',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'MALFORMED_MULTIPART',
  'TOO_MANY_FILES',
  'TOO_MANY_FIELDS',
]);

/** Sends one body; asserts the answer is a success or a well-formed 4xx envelope. */
async function expectNoServerError(url: string, contentType: string, body: Uint8Array): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status >= 200 && response.status < 300) return;
  expect(response.status, text).toBeGreaterThanOrEqual(400);
  expect(response.status, text).toBeLessThan(500);
  const envelope = JSON.parse(text) as { error: { code: string; message: string } };
  expect(KNOWN_4XX.has(envelope.error.code), text).toBe(true);
  expect(typeof envelope.error.message).toBe('string');
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });

/** Text that is mostly JSON-shaped: valid documents, cut or spliced ones, and random characters. */
const jsonishText = fc.oneof(
  jsonValue.map((value) => JSON.stringify(value)),
  fc.tuple(jsonValue, fc.nat()).map(([value, cut]) => {
    const text = JSON.stringify(value);
    return text.slice(0, cut % (text.length + 1));
  }),
  fc.tuple(jsonValue, fc.string(), fc.nat()).map(([value, junk, at]) => {
    const text = JSON.stringify(value);
    const index = at % (text.length + 1);
    return text.slice(0, index) + junk + text.slice(index);
  }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '{"__proto__":{"x":1},"name":"a"}',
    '{"constructor":{"prototype":{}},"name":"a"}',
    '[',
    '{"name":',
  ),
);

const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.x+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
);

interface Part {
  name: string;
  filename?: string;
  type?: string;
  content: Uint8Array;
}

const partArbitrary: fc.Arbitrary<Part> = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !/["\r\n]/.test(name)),
    filename: fc.string({ maxLength: 20 }).filter((name) => !/["\r\n]/.test(name)),
    type: fc.constantFrom('text/plain', 'image/png', 'application/octet-stream', 'multipart/mixed'),
    content: fc.uint8Array({ maxLength: 2048 }),
  },
  { requiredKeys: ['name', 'content'] },
);

function multipartBody(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'insert'; at: number; junk: Uint8Array }
  | { kind: 'fold' }
  | { kind: 'duplicate' };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.nat().map((at) => ({ kind: 'truncate' as const, at })),
  fc
    .tuple(fc.nat(), fc.integer({ min: 0, max: 255 }))
    .map(([at, byte]) => ({ kind: 'flip' as const, at, byte })),
  fc
    .tuple(
      fc.nat(),
      fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(Buffer.from('\r\n--b0undary\r\n'))),
    )
    .map(([at, junk]) => ({ kind: 'insert' as const, at, junk })),
  fc.constant({ kind: 'fold' as const }),
  fc.constant({ kind: 'duplicate' as const }),
);

function mutate(body: Buffer, change: Mutation): Buffer {
  const at = 'at' in change ? change.at % (body.length + 1) : 0;
  switch (change.kind) {
    case 'none':
      return body;
    case 'truncate':
      return body.subarray(0, at);
    case 'flip': {
      const copy = Buffer.from(body);
      if (copy.length > 0) copy[at % copy.length] = change.byte;
      return copy;
    }
    case 'insert':
      return Buffer.concat([body.subarray(0, at), change.junk, body.subarray(at)]);
    case 'fold':
      return Buffer.from(
        body.toString('latin1').replace('\r\nContent-Disposition', '\r\n Content-Disposition'),
        'latin1',
      );
    case 'duplicate':
      return Buffer.from(
        body.toString('latin1').replace(/(Content-Disposition[^\r]*\r\n)/, '$1$1'),
        'latin1',
      );
  }
}

const multipartContentType = fc.constantFrom(
  'multipart/form-data; boundary=b0undary',
  'multipart/form-data; boundary="b0undary"',
  'multipart/form-data; boundary=b0undary; boundary=other',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/mixed; boundary=b0undary',
  'application/json',
);

describe.each(adapters)('fuzzed bodies on $name', (adapter) => {
  it('never answers a malformed JSON body with a 5xx', { timeout: 120_000 }, async () => {
    const reports: ErrorReport[] = [];
    await withServer(
      adapter,
      { routes, options: { onError: (r: ErrorReport) => reports.push(r) } },
      async (url) => {
        await fc.assert(
          fc.asyncProperty(jsonishText, jsonContentType, async (text, contentType) => {
            await expectNoServerError(`${url}/json`, contentType, Buffer.from(text, 'utf8'));
          }),
          { seed: 20261123, numRuns: RUNS },
        );
        expect(reports).toEqual([]);
      },
    );
  });

  it('never answers a malformed multipart body with a 5xx', { timeout: 120_000 }, async () => {
    const reports: ErrorReport[] = [];
    await withServer(
      adapter,
      { routes, options: { onError: (r: ErrorReport) => reports.push(r) } },
      async (url) => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(partArbitrary, { maxLength: 6 }),
            mutation,
            multipartContentType,
            async (parts, change, contentType) => {
              const body = mutate(multipartBody('b0undary', parts), change);
              await expectNoServerError(`${url}/upload`, contentType, body);
            },
          ),
          { seed: 20261124, numRuns: RUNS },
        );
        expect(reports).toEqual([]);
        // Still serving.
        const ok = await fetch(`${url}/upload`, {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=b0undary' },
          body: multipartBody('b0undary', [{ name: 'a', content: Buffer.from('x') }]),
        });
        expect(ok.status).toBe(200);
      },
    );
  });
});
