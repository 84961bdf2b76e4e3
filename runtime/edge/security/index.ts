// `securityPlugin({ headers, cors, rateLimit })`: secure headers, CORS and
// rate-limit headers on every answer svc gives — application routes, edge routes, the neutral 404/405 and
// errors — through one request hook that runs before enrichers and guards; route buckets (`meta.rateLimit`)
// are counted by a guard, after the enrichers.
import type { App, Plugin } from '../../app/app.js';
import type { RequestHook, RequestHookInput } from '../../http/types.js';
import { createRateLimiter } from '../rate-limit/limiter.js';
import { corsStep } from './cors.js';
import { secureHeaderLists, secureHeadersStep } from './headers.js';
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

/** `app.register(securityPlugin({ cors: { origin: ['https://app.example.com'] } }))`. Options are checked here. */
export function securityPlugin(options: SecurityPluginOptions = {}): Plugin {
  const resolved = resolveSecurityOptions(options);
  const setSecureHeaders =
    resolved.headers === undefined ? undefined : secureHeadersStep(secureHeaderLists(resolved.headers));
  const answerCors = resolved.cors === undefined ? undefined : corsStep(resolved.cors);
  // Route buckets (`meta.rateLimit`) are counted even without a global one.
  const limiter = createRateLimiter(resolved.rateLimit.global, resolved.rateLimit.store);
  // One straight step rather than a list: it runs on every answer svc gives. Headers first, so a preflight
  // answered by CORS carries them too; rate limits after CORS, so a 429 carries the CORS headers (scripts can
  // read it) and preflights are not counted.
  const hook: RequestHook = {
    name: 'svc:security',
    onRequest(input: RequestHookInput) {
      setSecureHeaders?.(input);
      if (answerCors !== undefined) {
        answerCors(input);
        if (input.reply.sent) return;
      }
      return limiter.onRequest(input);
    },
  };
  return {
    name: 'svc:security',
    setup(app: App) {
      app.metadata.add('http:request-hooks', hook);
      app.metadata.add('http:guards', limiter.guard);
      // For documents: a global bucket may answer RATE_LIMITED on every route.
      if (resolved.rateLimit.global !== undefined)
        app.metadata.add('http:route-error-modules', { edge: { globalRateLimit: true } });
    },
  };
}
