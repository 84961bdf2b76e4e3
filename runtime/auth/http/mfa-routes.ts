// The two-factor routes of spec/modules/auth.yaml (`features: { mfa }`): enrol, activate, status and disable,
// each about the signed-in user. They exist only when the Auth has svckit's MFA (`auth.mfaEnabled`);
// authRoutes() leaves them out otherwise. The answers that carry a secret (the TOTP secret, the recovery
// codes) are never cached; the others are about one user and are not cached either.
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import { errors } from '../../../generated/modules/errors.js';
import type { RequestContext } from '../../http/types.js';
import type { Auth } from '../auth.js';
import type { PublicUser } from '../stores/users.js';
import { noStore } from './no-store.js';

/** The route ids of the `mfa` feature: mounted only for an Auth with MFA. */
export const MFA_ROUTE_IDS = ['mfaEnroll', 'mfaActivate', 'mfaStatus', 'mfaDisable'] as const;

export type MfaRouteId = (typeof MFA_ROUTE_IDS)[number];

/**
 * The caller's user id. An API key is never a second factor's owner: the routes refuse it (`apiKey: false`)
 * even before an API-key plugin enforces that key.
 */
function signedInUserId(context: RequestContext): string {
  if (context.user === undefined || context.apiKey !== undefined) throw errors.AUTH_REQUIRED();
  return (context.user as PublicUser).id;
}

export function mfaHandlers(auth: Auth): Pick<AuthHandlers, MfaRouteId> {
  return {
    async mfaEnroll({ context, reply }) {
      noStore(reply);
      return auth.enrollMfa(signedInUserId(context), context.amr ?? []);
    },

    async mfaActivate({ body, context, reply }) {
      noStore(reply);
      return auth.activateMfa(signedInUserId(context), body.code, context.amr ?? []);
    },

    async mfaStatus({ context, reply }) {
      noStore(reply);
      return auth.mfaStatus(signedInUserId(context));
    },

    async mfaDisable({ body, reply, context }) {
      noStore(reply);
      await auth.disableMfa(signedInUserId(context), body.code);
      return undefined;
    },
  };
}
