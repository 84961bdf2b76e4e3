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

// The serialize bench: a page of 20 products and a created product, each leaving with only the declared
// fields. The rows carry what a store returns and the API must not show (a supplier cost).

const PRODUCT_PROPERTIES = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  price: { type: 'number', minimum: 0 },
  quantity: { type: 'integer', minimum: 0 },
  tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 10 },
} as const;

/** The bench spec's Product, ProductInput and ProductPage, as a careful Fastify user declares them. */
export const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    ...PRODUCT_PROPERTIES,
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'price', 'quantity', 'tags', 'createdAt'],
  additionalProperties: false,
} as const;

export const PRODUCT_INPUT_SCHEMA = {
  type: 'object',
  properties: PRODUCT_PROPERTIES,
  required: ['name', 'price', 'quantity'],
  additionalProperties: false,
} as const;

export const PRODUCT_PAGE_SCHEMA = {
  type: 'object',
  properties: {
    items: { type: 'array', items: PRODUCT_SCHEMA },
    nextCursor: { type: ['string', 'null'] },
  },
  required: ['items', 'nextCursor'],
  additionalProperties: false,
} as const;

export interface ProductInput {
  name: string;
  price: number;
  quantity: number;
  tags?: string[];
}

const CREATED_AT = new Date(Date.UTC(2026, 10, 25, 9, 30));

function productRow(index: number) {
  return {
    id: `0b6f6c2e-4d1a-4c8e-9f3b-${String(index).padStart(12, '0')}`,
    name: `Product number ${index}`,
    price: 19.99 + index,
    quantity: index * 3,
    tags: ['kitchen', index % 2 === 0 ? 'sale' : 'new'],
    createdAt: new Date(CREATED_AT.getTime() + index * 60_000).toISOString(),
    supplierCost: 7.5 + index,
  };
}

/** What GET /products answers: one page of rows as a store returns them. */
export const PRODUCT_PAGE = {
  items: Array.from({ length: 20 }, (_, index) => productRow(index)),
  nextCursor: 'eyJhZnRlciI6MjB9',
};

/** What POST /products answers: the stored row, with its id, its creation time and the supplier cost. */
export function createdProduct(input: ProductInput) {
  return {
    id: '0b6f6c2e-4d1a-4c8e-9f3b-000000000042',
    name: input.name,
    price: input.price,
    quantity: input.quantity,
    tags: input.tags ?? [],
    createdAt: CREATED_AT.toISOString(),
    supplierCost: 12.5,
  };
}

/** The body the serialize bench posts. */
export const NEW_PRODUCT: ProductInput = { name: 'Teapot', price: 24.5, quantity: 3, tags: ['kitchen'] };
