// One edge plugin alone (`npm run bench -- edge-parts`): tracing, with its defaults.
import { startEdgeServer } from './edge-server.js';

await startEdgeServer(['tracing']);
