// The serializer choice, measured in one process: for the serialize bench's two answers (a page of 20
// products, one created product), the serializer `svc build` compiles (bench/spec/generated/serializers.js)
// against fast-json-stringify compiled from the same schemas (what Fastify runs for response schemas), with
// JSON.stringify of the whole value (which writes the undeclared field too) as the floor. Interleaved
// rounds; CPU time per call, the output flattened as a socket write would.
import fastJson from 'fast-json-stringify';
import { createProduct_201, listProducts_200 } from './spec/generated/serializers.js';
import {
  NEW_PRODUCT,
  PRODUCT_PAGE,
  PRODUCT_PAGE_SCHEMA,
  PRODUCT_SCHEMA,
  createdProduct,
} from './servers/shared.js';
import { median } from './lib/results.js';

export const SERIALIZERS_ID = 'serializers';

interface Candidate {
  name: string;
  write: (value: unknown) => string;
}

interface Shape {
  name: string;
  value: unknown;
  /** Calls per sample. */
  calls: number;
  candidates: Candidate[];
}

type FastJsonSchema = Parameters<typeof fastJson>[0];

function shapes(): Shape[] {
  // The bench's schemas are deeply readonly constants; fast-json-stringify's types want mutable arrays.
  const fjsPage = fastJson(PRODUCT_PAGE_SCHEMA as unknown as FastJsonSchema);
  const fjsProduct = fastJson(PRODUCT_SCHEMA as unknown as FastJsonSchema);
  const json = (value: unknown) => JSON.stringify(value);
  return [
    {
      name: 'page of 20 products (GET /products)',
      value: PRODUCT_PAGE,
      calls: 2_000,
      candidates: [
        { name: 'svc compiled serializer', write: listProducts_200 },
        { name: 'fast-json-stringify', write: fjsPage },
        { name: 'JSON.stringify (leaks supplierCost)', write: json },
      ],
    },
    {
      name: 'created product (POST /products)',
      value: createdProduct(NEW_PRODUCT),
      calls: 40_000,
      candidates: [
        { name: 'svc compiled serializer', write: createProduct_201 },
        { name: 'fast-json-stringify', write: fjsProduct },
        { name: 'JSON.stringify (leaks supplierCost)', write: json },
      ],
    },
  ];
}

/** CPU nanoseconds per call of `write(value)` over `calls` calls. */
function sample(write: (value: unknown) => string, value: unknown, calls: number): number {
  let bytes = 0;
  const before = process.cpuUsage();
  for (let index = 0; index < calls; index++) bytes += Buffer.byteLength(write(value));
  const used = process.cpuUsage(before);
  if (bytes === 0) throw new Error('nothing written');
  return ((used.user + used.system) * 1000) / calls;
}

export function runSerializersBench(options: { runs: number }): string {
  const all = shapes();
  for (const shape of all) {
    const expected = shape.candidates[0]!.write(shape.value);
    if (shape.candidates[1]!.write(shape.value) !== expected) {
      throw new Error(`${shape.name}: fast-json-stringify and svc write different bytes`);
    }
  }
  const warmUp = 10;
  const samples = new Map<string, number[]>();
  for (let round = 0; round < warmUp + options.runs; round++) {
    for (const shape of all) {
      for (const candidate of shape.candidates) {
        const ns = sample(candidate.write, shape.value, shape.calls);
        if (round < warmUp) continue;
        const key = `${shape.name}\u0000${candidate.name}`;
        samples.set(key, [...(samples.get(key) ?? []), ns]);
      }
    }
  }
  const rows: string[] = [];
  for (const shape of all) {
    const fjs = median(samples.get(`${shape.name}\u0000fast-json-stringify`)!);
    for (const candidate of shape.candidates) {
      const ns = median(samples.get(`${shape.name}\u0000${candidate.name}`)!);
      const bytes = Buffer.byteLength(candidate.write(shape.value));
      rows.push(
        `| ${shape.name} | ${candidate.name} | ${(ns / 1000).toFixed(2)} | ${Math.round(1e9 / ns)} | ${bytes} | ${((fjs / ns) * 100).toFixed(0)} % |`,
      );
    }
  }
  return [
    '## Response serializers: svc build vs fast-json-stringify (in-process, one core)',
    '',
    `${options.runs} interleaved rounds after ${warmUp} warm-up rounds; each round calls every serializer on each answer`,
    '(2,000 calls for the page, 40,000 for the product) and takes the CPU time. Medians. Both write the same bytes;',
    'JSON.stringify also writes the undeclared `supplierCost` and is shown as the floor. Speed relative to',
    'fast-json-stringify: higher is faster.',
    '',
    '| answer | serializer | µs/call | calls/s | bytes | vs fast-json-stringify |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
