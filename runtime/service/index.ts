// The `svckit/service` entry: the service svc.config.yaml declares, composed in one call. generated/service.ts
// binds it to the spec's artifacts; applications call that file's createService() / startService().
export { composeService } from './compose.js';
export { startService } from './start.js';
export { completeHandlers, missingHandlers } from './handlers.js';
export type {
  FromService,
  ModuleOverrides,
  ServiceArtifacts,
  ServiceContext,
  ServiceOptions,
} from './options.js';
