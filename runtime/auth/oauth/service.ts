// `OAuthService`: social and enterprise sign-in's protocol layer, orchestrating the parts. `start` signs a
// state bound to a new browser binding (state.ts), records its single-use mark and builds the consent URL
// with the PKCE challenge and nonce derived from the state id (pkce.ts); `finish` checks, in this order, the
// provider (404), the state and its binding (400), spends the mark (400 when spent), then the provider's
// answer: an `error` or no code, the exchange and every check on it (providers/), the profile rules
// (profile.ts) and the provider's email domains (domains.ts), each failure 502 AUTH_OAUTH_EXCHANGE_FAILED
// with the catalog's neutral message and the detail in a warn line. Accounts are not its concern: it answers
// a checked profile.
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { isPositiveWholeNumber } from '../../config/whole-number.js';
import { forwardingLogger, type ForwardingLogger } from '../../log/forwarding-logger.js';
import type { Logger } from '../../log/logger.js';
import { MemoryChallengeStore } from '../passkeys/memory-store.js';
import type { ChallengeStore } from '../passkeys/store.js';
import { newOpaqueToken } from '../tokens/opaque.js';
import { assertSigningSecret } from '../tokens/secret.js';
import { callbackUrl } from './callback-url.js';
import { emailDomainAllowed } from './domains.js';
import { OAuthExchangeError } from './exchange-error.js';
import { oauthKeys, type OAuthKeys } from './keys.js';
import { codeChallengeOf, codeVerifierFor, nonceFor } from './pkce.js';
import { checkedProfile } from './profile.js';
import { checkedProviders } from './provider-set.js';
import { issueState, verifyState } from './state.js';
import type { OAuthProfile, OAuthProvider, ProviderContext } from './types.js';

export { callbackUrl };

export interface OAuthServiceOptions {
  /** Signs states and derives PKCE verifiers and nonces; at least 32 characters outside development and test. */
  secret: string;
  providers: readonly OAuthProvider[];
  /** Stored for the account rules, which read it. */
  subjectConflict?: 'link';
  /** Stored for the account rules, which read it. */
  mfa?: 'skip';
  /** The deadline of each call to a provider, ms, 1 to 600 000. Default 10 000. */
  timeoutMs?: number;
  /** Where started sign-ins' single-use marks are kept. Default in this process's memory. */
  states?: ChallengeStore;
  /** How long a started sign-in may take, ms, 1 to 3 600 000. Default 10 minutes. */
  stateTtlMs?: number;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Unix ms now. Default Date.now. */
  clock?: () => number;
  /** Where failed exchanges are reported. Default the app's logger once a plugin attaches it. */
  logger?: Logger;
}

const OPTIONS = optionKeys<OAuthServiceOptions>({
  secret: true,
  providers: true,
  subjectConflict: true,
  mfa: true,
  timeoutMs: true,
  states: true,
  stateTtlMs: true,
  fetch: true,
  clock: true,
  logger: true,
});

const OWNER = 'new OAuthService()';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_STATE_TTL_MS = 10 * 60_000;
/**
 * Above 2^31 - 1 ms, Node fires an AbortSignal.timeout at once: every provider call would fail on the spot.
 * Ten minutes is already far longer than any provider takes to answer.
 */
const MAX_TIMEOUT_MS = 10 * 60_000;
/** A sign-in is one consent screen long; a state valid for days would only widen the window to replay it. */
const MAX_STATE_TTL_MS = 60 * 60_000;
/** The single-use marks share a ChallengeStore with nothing else, but are named apart all the same. */
const MARK_PREFIX = 'oauth-state:';
/** A provider's `error` is logged cut to this length: it is the provider's (or the browser's) text. */
const MAX_LOGGED_ERROR = 100;

export class OAuthService {
  readonly subjectConflict: 'link' | undefined;
  readonly mfa: 'skip' | undefined;
  readonly timeoutMs: number;
  private readonly providers: ReadonlyMap<string, OAuthProvider>;
  private readonly keys: OAuthKeys;
  private readonly states: ChallengeStore;
  private readonly stateTtlMs: number;
  private readonly context: ProviderContext;
  private readonly clock: () => number;
  private readonly log: ForwardingLogger;
  private readonly loggerGiven: boolean;

  constructor(options: OAuthServiceOptions) {
    if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
    rejectUnknownOptions(options, OPTIONS, OWNER);
    assertSigningSecret(options.secret);
    this.keys = oauthKeys(options.secret);
    this.providers = checkedProviders(OWNER, options.providers);
    if (options.subjectConflict !== undefined && options.subjectConflict !== 'link') {
      throw invalidOption(OWNER, 'subjectConflict', "'link' or absent");
    }
    if (options.mfa !== undefined && options.mfa !== 'skip') {
      throw invalidOption(OWNER, 'mfa', "'skip' or absent");
    }
    this.subjectConflict = options.subjectConflict;
    this.mfa = options.mfa;
    this.timeoutMs = boundedMs(options.timeoutMs, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, 'timeoutMs');
    this.stateTtlMs = boundedMs(options.stateTtlMs, DEFAULT_STATE_TTL_MS, MAX_STATE_TTL_MS, 'stateTtlMs');
    const states = options.states ?? new MemoryChallengeStore();
    if (typeof states?.put !== 'function' || typeof states.take !== 'function') {
      throw invalidOption(OWNER, 'states', 'a ChallengeStore (put, take)');
    }
    this.states = states;
    for (const name of ['fetch', 'clock'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function') {
        throw invalidOption(OWNER, name, 'a function');
      }
    }
    this.clock = options.clock ?? Date.now;
    const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.context = Object.freeze({ fetch: fetchFn, timeoutMs: this.timeoutMs, clock: this.clock });
    this.log = forwardingLogger(options.logger);
    this.loggerGiven = options.logger !== undefined;
  }

  /** The configured providers' names, in the order given. */
  providerNames(): string[] {
    return [...this.providers.keys()];
  }

  /** Reports through the app's logger from now on, unless the service was given one of its own. */
  logTo(logger: Logger): void {
    if (!this.loggerGiven) this.log.attach(logger);
  }

  /** Binding value for the cookie + URL of the consent screen; records the state id as not yet used. */
  async start(
    provider: string,
    input: { callbackBaseUrl: string },
  ): Promise<{ url: URL; binding: string; expiresAt: number }> {
    const chosen = this.provider(provider);
    const redirectUri = callbackUrl(input.callbackBaseUrl, chosen.name);
    const binding = newOpaqueToken();
    const issued = issueState(this.keys, chosen.name, binding, this.clock() + this.stateTtlMs);
    const request = {
      redirectUri,
      state: issued.state,
      codeChallenge: codeChallengeOf(codeVerifierFor(this.keys, issued.id)),
      nonce: nonceFor(this.keys, issued.id),
    };
    const url = await this.guarded(chosen.name, () => chosen.authorizationUrl(request, this.context));
    await this.states.put(MARK_PREFIX + issued.id, {
      challenge: issued.id,
      userId: undefined,
      expiresAt: issued.expiresAt,
    });
    return { url, binding, expiresAt: issued.expiresAt };
  }

  /** Checks state+binding, spends the state (single use), exchanges the code, checks the profile and domain. */
  async finish(
    provider: string,
    input: {
      callbackBaseUrl: string;
      state: string | undefined;
      code: string | undefined;
      error?: string | undefined;
      binding: string | undefined;
    },
  ): Promise<OAuthProfile> {
    const chosen = this.provider(provider);
    const redirectUri = callbackUrl(input.callbackBaseUrl, chosen.name);
    const now = this.clock();
    const stateId = verifyState(this.keys, input.state, chosen.name, input.binding, now);
    if (stateId === undefined) throw errors.AUTH_OAUTH_STATE_INVALID();
    // Spent before anything else is tried: a state whose exchange failed is not tried again.
    if ((await this.states.take(MARK_PREFIX + stateId, now)) === undefined) {
      throw errors.AUTH_OAUTH_STATE_INVALID();
    }
    return this.guarded(chosen.name, async () => {
      if (input.error !== undefined) {
        throw new OAuthExchangeError(
          `provider sent error ${JSON.stringify(String(input.error).slice(0, MAX_LOGGED_ERROR))}`,
        );
      }
      if (typeof input.code !== 'string' || input.code === '') {
        throw new OAuthExchangeError('provider sent no code');
      }
      const profile = checkedProfile(
        chosen.name,
        await chosen.exchange({
          ...this.context,
          code: input.code,
          redirectUri,
          codeVerifier: codeVerifierFor(this.keys, stateId),
          nonce: nonceFor(this.keys, stateId),
        }),
      );
      if (!emailDomainAllowed(profile.email, chosen.allowedEmailDomains)) {
        throw new OAuthExchangeError(
          `email domain ${profile.email.slice(profile.email.indexOf('@') + 1)} is not allowed`,
        );
      }
      return profile;
    });
  }

  private provider(name: string): OAuthProvider {
    const provider = typeof name === 'string' ? this.providers.get(name) : undefined;
    if (provider === undefined) throw errors.AUTH_OAUTH_UNKNOWN_PROVIDER();
    return provider;
  }

  /** Runs a step that talks to the provider: any failure is logged (warn) and answered with the neutral 502. */
  private async guarded<T>(provider: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      // A check's own refusal reads as it is; anything else (a provider implementation's bug) with its name.
      const detail =
        error instanceof OAuthExchangeError
          ? error.message
          : error instanceof Error
            ? `${error.name}: ${error.message}`
            : String(error);
      this.log.warn('oauth sign-in failed', { provider, reason: detail });
      throw errors.AUTH_OAUTH_EXCHANGE_FAILED();
    }
  }
}

/** `value` (default `fallback`) if a whole number of ms from 1 to `max`, else OPTION_INVALID. */
function boundedMs(value: unknown, fallback: number, max: number, option: string): number {
  const chosen = value ?? fallback;
  if (!isPositiveWholeNumber(chosen) || chosen > max) {
    throw invalidOption(
      OWNER,
      option,
      `a whole number of milliseconds from 1 to ${max}`,
      `got ${String(chosen)}`,
    );
  }
  return chosen;
}
