// The edge bench server with tracing's in-memory exporter, which keeps the latest 1000 spans.
import { ALL_EDGE_PARTS, startEdgeServer } from './edge-server.js';

await startEdgeServer(ALL_EDGE_PARTS, true);
