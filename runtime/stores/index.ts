// Shared stores (docs/stores.md): the SQL (PostgreSQL, PGlite) and Redis backends of every store contract,
// and openStores(), which selects them from svc.config.yaml's `stores`.
export * from './open.js';
export * from './sql/index.js';
export * from './redis/index.js';
export * from './memory/index.js';
export * from './cache/index.js';
