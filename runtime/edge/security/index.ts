// `securityPlugin({ headers, cors })` (seed 001 "Edge plugin options"): secure headers and CORS on every answer
// svc gives — application routes, edge routes, the neutral 404/405 and errors — through one request hook that
// runs before enrichers and guards.
import type { App, Plugin } from '../../app/app.js';
import type { RequestHook, RequestHookInput } from '../../http/types.js';
import { corsStep } from './cors.js';
import { secureHeaderList, secureHeadersStep } from './headers.js';
import { resolveSecurityOptions, type SecurityPluginOptions } from './options.js';

export {
  ALWAYS_EXPOSED_HEADERS,
  DEFAULT_CONTENT_SECURITY_POLICY,
  DEFAULT_CORS_MAX_AGE_SECONDS,
  DEFAULT_CORS_METHODS,
  DEFAULT_HSTS,
} from './options.js';
export type { CorsOptions, SecureHeadersOptions, SecurityPluginOptions } from './options.js';

type RequestStep = (input: RequestHookInput) => void;

/** Runs the steps in order and stops once one answered (a preflight). */
function runSteps(steps: readonly RequestStep[]): RequestStep {
  if (steps.length === 1) return steps[0] as RequestStep;
  return (input) => {
    for (const step of steps) {
      step(input);
      if (input.reply.sent) return;
    }
  };
}

/** `app.register(securityPlugin({ cors: { origin: ['https://app.example.com'] } }))`. Options are checked here. */
export function securityPlugin(options: SecurityPluginOptions = {}): Plugin {
  const resolved = resolveSecurityOptions(options);
  // Headers first, so a preflight answered by CORS carries them too.
  const steps: RequestStep[] = [];
  if (resolved.headers !== undefined) steps.push(secureHeadersStep(secureHeaderList(resolved.headers)));
  if (resolved.cors !== undefined) steps.push(corsStep(resolved.cors));
  const hook: RequestHook | undefined =
    steps.length === 0 ? undefined : { name: 'svc:security', onRequest: runSteps(steps) };
  return {
    name: 'svc:security',
    setup(app: App) {
      if (hook !== undefined) app.metadata.add('http:request-hooks', hook);
    },
  };
}
