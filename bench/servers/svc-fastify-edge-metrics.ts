// One edge plugin alone (`npm run bench -- edge-parts`): metrics, with its defaults.
import { startEdgeServer } from './edge-server.js';

await startEdgeServer(['metrics']);
