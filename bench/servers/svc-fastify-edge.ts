// The edge bench server with tracing's default exporter: spans are made, propagated and dropped.
import { ALL_EDGE_PARTS, startEdgeServer } from './edge-server.js';

await startEdgeServer(ALL_EDGE_PARTS);
