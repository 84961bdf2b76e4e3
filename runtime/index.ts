// The `svckit` entry: everything an application or a plugin uses, for convenience. Each part also has its own
// entry, so an app can load only what it uses: `svckit/core` (kernel, HTTP, config), `svckit/auth`,
// `svckit/tenancy`, `svckit/files`, `svckit/edge`, `svckit/idempotency`, `svckit/stores`, `svckit/data`, `svckit/mcp`,
// `svckit/mcp-client`, `svckit/mail`, and the adapters (`svckit/fastify`, `svckit/express`, `svckit/hono`).
export * from './core.js';
export * from './edge/index.js';
export * from './idempotency/index.js';
export * from './auth/index.js';
export * from './tenancy/index.js';
export * from './files/index.js';
export * from './stores/index.js';
export * from './data/index.js';
export * from './mcp/index.js';
export * from './mail/index.js';
export * from './service/index.js';
