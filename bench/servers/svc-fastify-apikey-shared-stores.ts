// The stores-apikey bench's subject: the same server with users and keys in PostgreSQL and rate limits in Redis.
import { startApiKeyStoresBenchServer } from './apikey-stores-server.js';

await startApiKeyStoresBenchServer('shared');
