// The edge bench server with tracing's default exporter: spans are made, propagated and dropped.
import { startEdgeServer } from './edge-server.js';

await startEdgeServer(false);
