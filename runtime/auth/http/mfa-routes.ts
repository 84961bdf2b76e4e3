// The two-factor routes of spec/modules/auth.yaml (`features: { mfa }`): enrol, activate, status and disable,
// each about the signed-in user. They exist only when the Auth has svckit's MFA (`auth.mfaEnabled`);
// authRoutes() leaves them out otherwise. The answers that carry a secret (the TOTP secret, the recovery
// codes) are never cached; the others are about one user and are not cached either.
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import type { Auth } from '../auth.js';
import { signedInUser } from './credentials.js';
import { noStore } from './no-store.js';

/** The route ids of the `mfa` feature: mounted only for an Auth with MFA. */
export const MFA_ROUTE_IDS = ['mfaEnroll', 'mfaActivate', 'mfaStatus', 'mfaDisable'] as const;

export type MfaRouteId = (typeof MFA_ROUTE_IDS)[number];

export function mfaHandlers(auth: Auth): Pick<AuthHandlers, MfaRouteId> {
  return {
    async mfaEnroll({ context, reply }) {
      noStore(reply);
      return auth.enrollMfa(signedInUser(context).id, context.amr ?? []);
    },

    async mfaActivate({ body, context, reply }) {
      noStore(reply);
      return auth.activateMfa(signedInUser(context).id, body.code, context.amr ?? []);
    },

    async mfaStatus({ context, reply }) {
      noStore(reply);
      return auth.mfaStatus(signedInUser(context).id);
    },

    async mfaDisable({ body, reply, context }) {
      noStore(reply);
      await auth.disableMfa(signedInUser(context).id, body.code);
      return undefined;
    },
  };
}
