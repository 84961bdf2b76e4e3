// Property-based tests with a fixed seed: (a) random valid bodies round-trip exactly under random chunking;
// (b) random mutations of valid bodies end in a parse or a 4xx SvcError, never another exception or a hang.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../runtime/http/errors.js';
import { startUpload, upload } from '../../../runtime/http/upload/index.js';
import { chunksOf, multipart, readAll, streamOf, type PartSpec } from './multipart.js';

const SEED = 4242;
const BCHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";
/** Names and filenames that survive quoting and sanitising unchanged. */
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.[] \u00e9\u6f22';

const boundaryArb = fc
  .array(fc.constantFrom(...BCHARS), { minLength: 1, maxLength: 70 })
  .map((chars) => chars.join(''));

const nameArb = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 12 })
  .map((chars) => chars.join('').trim())
  .filter((name) => name !== '' && name !== '.' && name !== '..' && name !== '__proto__');

/** A piece of part data: random bytes, or something close to the delimiter (filled in once the boundary is known). */
type DataPiece = { bytes: Uint8Array } | { delimiterPrefix: number } | { literal: string };

const pieceArb: fc.Arbitrary<DataPiece> = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes })) },
  { weight: 2, arbitrary: fc.nat({ max: 80 }).map((delimiterPrefix) => ({ delimiterPrefix })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('\r', '\n', '\r\n', '-', '--', '\r\n--', '\r\n\r\n')
      .map((literal) => ({ literal })),
  },
);

interface PartPlan {
  kind: 'file' | 'field';
  name: string;
  filename: string;
  type: string | undefined;
  pieces: DataPiece[];
  text: string;
}

const partArb: fc.Arbitrary<PartPlan> = fc.record({
  kind: fc.constantFrom('file', 'field'),
  name: nameArb,
  filename: nameArb,
  type: fc.option(fc.constantFrom('text/plain', 'image/png', 'application/json'), { nil: undefined }),
  pieces: fc.array(pieceArb, { maxLength: 8 }),
  text: fc.string({ unit: 'grapheme', maxLength: 20 }),
});

interface BodyPlan {
  boundary: string;
  parts: PartPlan[];
  preamble: string | undefined;
  epilogue: string | undefined;
  chunkSizes: number[];
}

const bodyArb: fc.Arbitrary<BodyPlan> = fc.record({
  boundary: boundaryArb,
  parts: fc.array(partArb, { maxLength: 6 }),
  preamble: fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }), { nil: undefined }),
  epilogue: fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }), { nil: undefined }),
  chunkSizes: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
});

function dataOf(plan: PartPlan, boundary: string): Buffer {
  const delimiter = `\r\n--${boundary}`;
  if (plan.kind === 'field') return Buffer.from(plan.text, 'utf8');
  return Buffer.concat(
    plan.pieces.map((piece) => {
      if ('bytes' in piece) return Buffer.from(piece.bytes);
      if ('literal' in piece) return Buffer.from(piece.literal);
      return Buffer.from(delimiter.slice(0, Math.min(piece.delimiterPrefix, delimiter.length - 1)));
    }),
  );
}

interface Built {
  body: Buffer;
  contentType: string;
  expected: {
    files: Array<{ field: string; filename: string; declaredType: string; data: string }>;
    fields: Record<string, string>;
  };
  /** False when the random bytes happen to contain the delimiter, or the preamble/epilogue would change the framing. */
  valid: boolean;
}

function build(plan: BodyPlan): Built {
  const delimiter = Buffer.from(`\r\n--${plan.boundary}`);
  const specs: PartSpec[] = [];
  const files: Built['expected']['files'] = [];
  const fields: Record<string, string> = {};
  let valid = true;
  for (const part of plan.parts) {
    const data = dataOf(part, plan.boundary);
    // Part data must not hold the delimiter, nor end in a way that completes one with what follows.
    if (Buffer.concat([data, delimiter]).indexOf(delimiter) !== data.length) valid = false;
    if (part.kind === 'file') {
      specs.push({ name: part.name, filename: part.filename, type: part.type, data });
      files.push({
        field: part.name,
        filename: part.filename,
        declaredType: part.type ?? 'application/octet-stream',
        data: data.toString('base64'),
      });
    } else {
      specs.push({ name: part.name, data });
      fields[part.name] = part.text;
    }
  }
  const preambleText = plan.preamble === undefined ? undefined : plan.preamble.replace(/\r|\n/g, '');
  if (preambleText !== undefined && preambleText.includes(`--${plan.boundary}`)) valid = false;
  const body = multipart(specs, { boundary: plan.boundary, preamble: preambleText, epilogue: plan.epilogue });
  return {
    body,
    contentType: `multipart/form-data; boundary="${plan.boundary}"`,
    expected: { files, fields },
    valid,
  };
}

async function parse(body: Buffer, contentType: string, chunkSizes: number[]) {
  const session = startUpload({
    stream: streamOf(chunksOf(body, chunkSizes)),
    headers: { 'content-type': contentType },
    limits: upload({ maxBytes: 1 << 20, maxFiles: 10, maxFields: 10, maxHeaderBytes: 512 }).limits,
  });
  const result = await readAll(session);
  const finished = await session.finish();
  return { result, finished };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no outcome within ${ms} ms (hang)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('fuzzing (seed 4242)', () => {
  it('round-trips random valid bodies under random chunking', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, async (plan) => {
        const built = build(plan);
        fc.pre(built.valid);
        const { result, finished } = await withTimeout(
          parse(built.body, built.contentType, plan.chunkSizes),
          2000,
        );
        expect(finished).toEqual({ complete: true });
        expect({
          files: result.files.map(({ declaredLength: _length, ...file }) => ({
            ...file,
            data: file.data.toString('base64'),
          })),
          fields: result.fields,
        }).toEqual(built.expected);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  const mutationArb = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({
      kind: fc.constant('flip' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      byte: fc.integer({ min: 0, max: 255 }),
    }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      junk: fc.oneof(
        fc.constantFrom(
          '\r\n',
          '\n',
          '\r',
          ' ',
          ':',
          ';',
          '"',
          '\r\n\r\n',
          '\r\n ',
          'X-A: b\r\n',
          '--',
          '\u0000',
        ),
        fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      ),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 1, max: 40 }),
    }),
    fc.record({ kind: fc.constant('boundary' as const), replacement: fc.string({ maxLength: 80 }) }),
  );

  it('ends every mutated body in a parse or a 4xx SvcError, never a hang', async () => {
    let refused = 0;
    let parsed = 0;
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        async (plan, mutations) => {
          const built = build(plan);
          let body = built.body;
          let contentType = built.contentType;
          for (const mutation of mutations) {
            const at = 'at' in mutation ? Math.floor(mutation.at * body.length) : 0;
            if (mutation.kind === 'truncate') body = body.subarray(0, at);
            if (mutation.kind === 'flip' && body.length > 0) {
              body = Buffer.from(body);
              body[Math.min(at, body.length - 1)] = mutation.byte;
            }
            if (mutation.kind === 'insert') {
              body = Buffer.concat([
                body.subarray(0, at),
                Buffer.from(mutation.junk, 'latin1'),
                body.subarray(at),
              ]);
            }
            if (mutation.kind === 'delete')
              body = Buffer.concat([body.subarray(0, at), body.subarray(at + mutation.length)]);
            if (mutation.kind === 'boundary')
              contentType = `multipart/form-data; boundary=${mutation.replacement}`;
          }
          try {
            const { finished } = await withTimeout(parse(body, contentType, plan.chunkSizes), 2000);
            expect(finished.complete).toBe(true);
            parsed++;
          } catch (error) {
            if (!(error instanceof SvcError)) throw error;
            expect(error.status).toBeGreaterThanOrEqual(400);
            expect(error.status).toBeLessThan(500);
            refused++;
          }
        },
      ),
      { seed: SEED, numRuns: 10_000 },
    );
    // Both outcomes must really occur, or the property says little.
    expect(refused).toBeGreaterThan(2000);
    expect(parsed).toBeGreaterThan(500);
  });
});
