// One edge plugin alone (`npm run bench -- edge-parts`): security, with its defaults.
import { startEdgeServer } from './edge-server.js';

await startEdgeServer(['security']);
