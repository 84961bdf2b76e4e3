// The MFA requirement policy (`authPlugin({ requireMfa })`): a request that carries a user's credential must
// carry one obtained with a second factor (`context.amr` holds 'mfa'). A user without MFA enabled is told to
// enrol (403 AUTH_MFA_ENROLLMENT_REQUIRED), one with it to sign in again with a code (403 AUTH_MFA_REQUIRED).
// Routes with `meta.mfa: false` (signing in, enrolling) are exempt, or no one could ever satisfy the policy;
// API-key requests are not subject to MFA, and anonymous requests carry no credential to judge.
import { errors } from '../../../generated/modules/errors.js';
import { invalidOption } from '../../config/option-errors.js';
import type { Guard, RequestContext } from '../../http/types.js';
import type { Auth } from '../auth.js';
import type { PublicUser } from '../stores/users.js';

/**
 * An API-key request: a key and no credential of a user's own (a bearer token, a session). A key presented
 * beside a user's password-only token does not exempt that token.
 */
export function isApiKeyRequest(context: RequestContext): boolean {
  return context.apiKey !== undefined && context.credential === undefined;
}

/** Whether this user must have signed in with a second factor, for this request. */
export type MfaRequirementCheck = (user: PublicUser, context: RequestContext) => boolean | Promise<boolean>;

/** `true`: every user; a function: the users (and requests) it answers true for; `false`: nobody. */
export type MfaRequirement = boolean | MfaRequirementCheck;

/** The policy's guard, or undefined when `requirement` is off. */
export function mfaPolicyGuard(auth: Auth, requirement: unknown, owner: string): Guard | undefined {
  if (requirement === undefined || requirement === false) return undefined;
  if (requirement !== true && typeof requirement !== 'function') {
    throw invalidOption(owner, 'requireMfa', 'true, false or (user, context) => boolean');
  }
  // Without svckit's MFA no user could enrol: the policy would lock every account out.
  if (!auth.mfaEnabled) {
    throw invalidOption(owner, 'requireMfa', 'an Auth with two-factor sign-in (new Auth({ mfa }))');
  }
  const applies = requirement === true ? undefined : (requirement as MfaRequirementCheck);
  return {
    name: 'svc:auth-mfa-policy',
    appliesTo: (route) => route.meta.mfa !== false,
    async check({ context }) {
      if (context.user === undefined || isApiKeyRequest(context)) return;
      if (context.amr?.includes('mfa')) return;
      const user = context.user as PublicUser;
      if (applies !== undefined && !(await applies(user, context))) return;
      if (await auth.isMfaEnabled(user.id)) throw errors.AUTH_MFA_REQUIRED({ status: 403 });
      throw errors.AUTH_MFA_ENROLLMENT_REQUIRED({
        message: 'Two-factor enrolment is required: enrol and activate it, then sign in again with a code.',
      });
    },
  };
}
