// The profile rules, whatever the provider: a non-empty string subject (at most 255 characters, OIDC's
// limit), a string email with exactly one `@` and something on both sides, trimmed and lower-cased, and
// `emailVerified` true only when the provider said `true` (the boolean: a string "true" is not). A profile
// that breaks one is refused as a failed exchange.
import { OAuthExchangeError } from './exchange-error.js';
import type { OAuthProfile } from './types.js';

const MAX_SUBJECT_LENGTH = 255;
const MAX_EMAIL_LENGTH = 254;

/** What a provider said, before the rules: `verified` is the raw `email_verified` (or GitHub's `verified`). */
export interface ProfileClaims {
  subject: unknown;
  email: unknown;
  verified: unknown;
}

export function profileFrom(provider: string, claims: ProfileClaims): OAuthProfile {
  const { subject } = claims;
  if (typeof subject !== 'string' || subject === '' || subject.length > MAX_SUBJECT_LENGTH) {
    throw new OAuthExchangeError(`${provider} gave no usable subject`);
  }
  return {
    provider,
    subject,
    email: checkedEmail(provider, claims.email),
    emailVerified: claims.verified === true,
  };
}

/** A profile some provider built, held to the same rules (the service checks every provider's). */
export function checkedProfile(provider: string, profile: OAuthProfile): OAuthProfile {
  if (profile === null || typeof profile !== 'object') {
    throw new OAuthExchangeError(`${provider} gave no profile`);
  }
  return profileFrom(provider, {
    subject: profile.subject,
    email: profile.email,
    verified: profile.emailVerified,
  });
}

function checkedEmail(provider: string, value: unknown): string {
  if (typeof value !== 'string') throw new OAuthExchangeError(`${provider} gave no email`);
  const email = value.trim().toLowerCase();
  const at = email.indexOf('@');
  const oneAt = at > 0 && at === email.lastIndexOf('@') && at < email.length - 1;
  if (!oneAt || email.length > MAX_EMAIL_LENGTH || /\s/.test(email)) {
    throw new OAuthExchangeError(`${provider} gave an email that is not one address (one @, no spaces)`);
  }
  return email;
}
