// What both bench servers answer, so the comparison measures the frameworks and nothing else.
export const GREETING = { hello: 'world', n: 42 };

/** JSON Schema of the POST body; plain Fastify validates with it natively, plain Express and Hono through ajv. */
export const ITEM_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    quantity: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 10 },
  },
  required: ['name', 'quantity'],
  additionalProperties: false,
} as const;

/** Prints the URL the bench runner waits for; SIGTERM exits normally so `--cpu-prof` profiles get written. */
export function announce(url: string): void {
  process.on('SIGTERM', () => process.exit(0));
  process.stdout.write(`listening ${url}\n`);
}
