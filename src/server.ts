// Entry of `svc start`, `svc dev` and `svc mcp`: compose the service svc.config.yaml declares and listen where
// `server:` says. A refusal to boot prints its code, message and hint.
import { startService } from '../generated/service.js';
import { handlers, plugins } from './app.js';

await startService({ handlers, plugins });
