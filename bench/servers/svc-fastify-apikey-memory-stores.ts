// The stores-apikey bench's baseline: a key-authenticated route on svc's in-memory stores.
import { startApiKeyStoresBenchServer } from './apikey-stores-server.js';

await startApiKeyStoresBenchServer('memory');
