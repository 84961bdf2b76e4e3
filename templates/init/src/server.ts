// Entry of `svc start` and `svc dev`: compose the service from svc.config.yaml and listen where `server:`
// says. A refusal to boot prints its code and a hint.
import { startService } from '../generated/service.js';
import { handlers, plugins } from './app.js';

await startService({ handlers, plugins });
