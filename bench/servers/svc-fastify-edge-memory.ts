// The edge bench server with tracing's in-memory exporter, which keeps the latest 1000 spans.
import { startEdgeServer } from './edge-server.js';

await startEdgeServer(true);
