// `securityPlugin({ headers, cors, rateLimit })` (seed 001 "Edge plugin options"): secure headers, CORS and
// rate-limit headers on every answer svc gives — application routes, edge routes, the neutral 404/405 and
// errors — through one request hook that runs before enrichers and guards; route buckets (`meta.rateLimit`)
// are counted by a guard, after the enrichers.
import type { App, Plugin } from '../../app/app.js';
import type { RequestHook, RequestHookInput } from '../../http/types.js';
import { createRateLimiter } from '../rate-limit/limiter.js';
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
export { DOCUMENT_SECURE_HEADERS } from './headers.js';
export type {
  CorsOptions,
  RateLimitOptions,
  SecureHeadersOptions,
  SecurityPluginOptions,
} from './options.js';

type RequestStep = (input: RequestHookInput) => void | Promise<void>;

/** Runs the steps in order and stops once one answered (a preflight). Synchronous until a step is async. */
function runSteps(steps: readonly RequestStep[]): RequestStep {
  if (steps.length === 1) return steps[0] as RequestStep;
  const runFrom = (input: RequestHookInput, from: number): void | Promise<void> => {
    for (let index = from; index < steps.length; index++) {
      if (input.reply.sent) return;
      const pending = (steps[index] as RequestStep)(input);
      if (pending !== undefined) return pending.then(() => runFrom(input, index + 1));
    }
  };
  return (input) => runFrom(input, 0);
}

/** `app.register(securityPlugin({ cors: { origin: ['https://app.example.com'] } }))`. Options are checked here. */
export function securityPlugin(options: SecurityPluginOptions = {}): Plugin {
  const resolved = resolveSecurityOptions(options);
  // Headers first, so a preflight answered by CORS carries them too.
  const steps: RequestStep[] = [];
  if (resolved.headers !== undefined) steps.push(secureHeadersStep(secureHeaderList(resolved.headers)));
  if (resolved.cors !== undefined) steps.push(corsStep(resolved.cors));
  // Rate limits after CORS: a 429 carries the CORS headers (so scripts can read it) and preflights, answered
  // by the CORS step, are not counted. Route buckets (`meta.rateLimit`) are counted even without a global one.
  const limiter = createRateLimiter(resolved.rateLimit.global, resolved.rateLimit.store);
  steps.push(limiter.onRequest);
  const hook: RequestHook = { name: 'svc:security', onRequest: runSteps(steps) };
  return {
    name: 'svc:security',
    setup(app: App) {
      app.metadata.add('http:request-hooks', hook);
      app.metadata.add('http:guards', limiter.guard);
    },
  };
}
