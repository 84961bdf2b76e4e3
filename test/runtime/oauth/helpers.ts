// Shared set-up of the OAuth protocol tests: a service over the loopback fake provider with a hand-moved
// clock and a collecting logger, and one whole sign-in (start, the consent screen, finish).
import { OAuthService, type OAuthServiceOptions } from '../../../runtime/auth/oauth/service.js';
import type { OAuthProfile, OAuthProvider } from '../../../runtime/auth/oauth/types.js';
import { collectingLogger, type CollectingLogger } from '../../../runtime/log/collecting-logger.js';
import { fakeClock, type FakeClock } from '../contracts/fake-clock.js';
import type { FakeProvider } from './fake-provider.js';

export const T0 = 1_800_000_000_000;
export const SECRET = 'a-test-secret-of-at-least-32-characters!';
export const BASE = 'http://127.0.0.1:3000';

export interface Harness {
  service: OAuthService;
  clock: FakeClock;
  logger: CollectingLogger;
}

export function harness(
  providers: readonly OAuthProvider[],
  options: Partial<OAuthServiceOptions> = {},
  clock: FakeClock = fakeClock(T0),
): Harness {
  const logger = collectingLogger();
  const service = new OAuthService({ secret: SECRET, providers, clock: clock.now, logger, ...options });
  return { service, clock, logger };
}

/** Starts a sign-in, passes the consent screen of `fake`, and answers what finish needs. */
export async function started(service: OAuthService, provider: string, fake: FakeProvider) {
  const { url, binding } = await service.start(provider, { callbackBaseUrl: BASE });
  const state = url.searchParams.get('state') ?? undefined;
  const code = fake.authorize(url);
  return { url, binding, state, code, callbackBaseUrl: BASE };
}

/** One whole sign-in with `fake` as the provider. */
export async function signIn(
  service: OAuthService,
  provider: string,
  fake: FakeProvider,
): Promise<OAuthProfile> {
  const { binding, state, code } = await started(service, provider, fake);
  return service.finish(provider, { callbackBaseUrl: BASE, state, code, binding });
}

export const EXCHANGE_FAILED = {
  code: 'AUTH_OAUTH_EXCHANGE_FAILED',
  status: 502,
  message: 'Sign-in with the provider failed.',
};
export const STATE_INVALID = { code: 'AUTH_OAUTH_STATE_INVALID', status: 400 };
export const UNKNOWN_PROVIDER = { code: 'AUTH_OAUTH_UNKNOWN_PROVIDER', status: 404 };
