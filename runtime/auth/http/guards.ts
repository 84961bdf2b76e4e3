// Guards of the auth plugin: `auth: true` needs an authenticated caller (a user, or an API key, whose own
// rules the API-key plugin enforces); `mfa: true` asks for a credential obtained with a second factor
// (step-up), which no API key is. Each runs only on routes that declare its key. authVisibility hides those
// routes from tool listings of callers without credentials.
import { errors } from '../../../generated/modules/errors.js';
import type { Guard, RouteVisibilityCheck } from '../../http/types.js';
import { isApiKeyRequest } from './mfa-policy.js';

export const authRequiredGuard: Guard = {
  name: 'svc:auth',
  appliesTo: (route) => route.meta.auth === true,
  check({ context }) {
    if (context.user === undefined && context.apiKey === undefined) throw errors.AUTH_REQUIRED();
  },
};

export const mfaStepUpGuard: Guard = {
  name: 'svc:auth-mfa',
  appliesTo: (route) => route.meta.mfa === true,
  check({ context }) {
    // A key is no sign-in with a second factor: step-up refuses it (the MFA policy does not apply to keys).
    if (isApiKeyRequest(context)) {
      throw errors.AUTH_APIKEY_NOT_ALLOWED({
        message: 'API keys are not accepted here: this route needs a sign-in with a second factor.',
      });
    }
    if (context.user === undefined) throw errors.AUTH_REQUIRED();
    if (!context.amr?.includes('mfa')) throw errors.AUTH_MFA_REQUIRED({ status: 403 });
  },
};

/**
 * Tool listings hide `meta.auth` and `meta.mfa` routes from callers without credentials, so an anonymous
 * agent is not shown tools it cannot call. Only what the enricher already found is read; the guards still decide every call.
 */
export const authVisibility: RouteVisibilityCheck = {
  name: 'svc:auth',
  isVisible(route, context) {
    if (route.meta.auth !== true && route.meta.mfa !== true) return true;
    return context.user !== undefined || context.apiKey !== undefined;
  },
};
