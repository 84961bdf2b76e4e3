// The passkey routes of spec/modules/auth.yaml (`features: { passkeys }`): registering a passkey, signing in
// with one, the caller's list and removal. They exist only when the Auth has passkeys (`auth.passkeysEnabled`);
// authRoutes() leaves them out otherwise. None is cached: each answers a challenge, tokens or one user's data.
// A ceremony is bound to the browser that started it: the options routes set the `svc_passkey` cookie (32
// random bytes, HttpOnly, SameSite=Strict, on /auth/passkeys only, living as long as the challenge), and the
// service keys the challenge by the cookie's SHA-256, so the cookie's value is never stored. The verify routes
// read the cookie and expire it; without it there is no ceremony to finish (400 WEBAUTHN_CHALLENGE_INVALID).
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import type { SignedIn } from '../../../generated/modules/auth/types.js';
import { errors } from '../../../generated/modules/errors.js';
import type { RequestHeaders, SvcReply } from '../../http/types.js';
import type { Auth, LoginResult } from '../auth.js';
import type { PasskeyService, PasskeyView } from '../passkeys/service.js';
import { expireCookieLine, setCookieLine, type SessionCookie } from './cookie.js';
import { hashToken, newOpaqueToken } from '../tokens/opaque.js';
import { boundCookieValue, headerValue, signedInUser } from './credentials.js';
import { noStore } from './no-store.js';
import { putSessionCookie } from './set-cookie.js';

/** The route ids of the `passkeys` feature: mounted only for an Auth with passkeys. */
export const PASSKEY_ROUTE_IDS = [
  'passkeyRegisterOptions',
  'passkeyRegisterVerify',
  'passkeyLoginOptions',
  'passkeyLoginVerify',
  'passkeyList',
  'passkeyRemove',
] as const;

export type PasskeyRouteId = (typeof PASSKEY_ROUTE_IDS)[number];

const PASSKEY_COOKIE_NAME = 'svc_passkey';
/** Sent only to the passkey routes: no other request carries it. */
const PASSKEY_COOKIE_PATH = '/auth/passkeys';
/**
 * The ceremony cookie: Secure by the session cookie's rule, SameSite=Strict (a cross-site page can neither
 * start nor finish a ceremony in the user's browser), no Domain (sibling subdomains do not receive it).
 */
function passkeyCookie(session: SessionCookie): SessionCookie {
  return {
    name: PASSKEY_COOKIE_NAME,
    path: PASSKEY_COOKIE_PATH,
    sameSite: 'Strict',
    secure: session.secure,
    domain: undefined,
  };
}

/**
 * Ends the caller's ceremony: the cookie is expired whatever follows (its challenge is single use), and the
 * session key is answered. No cookie, a value not of the shape this code writes, or several cookies of
 * different values (one tossed by a sibling subdomain: which ceremony is the caller's cannot be told) are
 * 400 WEBAUTHN_CHALLENGE_INVALID.
 */
function endCeremony(headers: RequestHeaders, reply: SvcReply, cookie: SessionCookie): string {
  const value = boundCookieValue(headers, cookie);
  putSessionCookie(reply, cookie, expireCookieLine(cookie));
  if (value === undefined) throw errors.WEBAUTHN_CHALLENGE_INVALID();
  return hashToken(value);
}

/**
 * A browser names the page a request comes from (`Origin`): finishing a ceremony from a page that is not one of
 * the service's passkey origins (a sibling subdomain that planted its own ceremony cookie, to sign the victim
 * in as the attacker) is 403 AUTH_CSRF_REJECTED. A client that sends no Origin is no browser page.
 */
function checkOrigin(headers: RequestHeaders, passkeys: PasskeyService): void {
  const origin = headerValue(headers.origin);
  if (origin !== undefined && !passkeys.origins.includes(origin)) throw errors.AUTH_CSRF_REJECTED();
}

/** The passkey as the API shows it: `lastUsedAt` absent before the first sign-in. */
function shown(view: PasskeyView) {
  const { lastUsedAt, ...rest } = view;
  return lastUsedAt === undefined ? rest : { ...rest, lastUsedAt };
}

function serviceOf(auth: Auth): PasskeyService {
  if (auth.passkeys === undefined)
    throw new TypeError('authRoutes(): the passkey routes need an Auth with passkeys.');
  return auth.passkeys;
}

export function passkeyHandlers(
  auth: Auth,
  session: SessionCookie,
  signedIn: (result: LoginResult, reply: SvcReply) => Promise<SignedIn>,
): Pick<AuthHandlers, PasskeyRouteId> {
  const cookie = passkeyCookie(session);
  return {
    async passkeyRegisterOptions({ context, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      const value = newOpaqueToken();
      const options = await auth.startPasskeyRegistration(hashToken(value), user, context.amr);
      // The cookie lives as long as the challenge: `timeout` is the service's TTL.
      putSessionCookie(reply, cookie, setCookieLine(cookie, value, options.timeout));
      return options;
    },

    async passkeyRegisterVerify({ body, context, request, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      checkOrigin(request.headers, serviceOf(auth));
      const sessionKey = endCeremony(request.headers, reply, cookie);
      return shown(
        await auth.finishPasskeyRegistration(sessionKey, user, context.amr, body.response, body.label),
      );
    },

    async passkeyLoginOptions({ body, reply }) {
      noStore(reply);
      const value = newOpaqueToken();
      const options = await auth.startPasskeySignIn(hashToken(value), { email: body?.email });
      putSessionCookie(reply, cookie, setCookieLine(cookie, value, options.timeout));
      return options;
    },

    async passkeyLoginVerify({ body, request, reply }) {
      noStore(reply);
      checkOrigin(request.headers, serviceOf(auth));
      const sessionKey = endCeremony(request.headers, reply, cookie);
      const result = await auth.signInWithPasskey(sessionKey, body.response, {
        mfaCode: body.mfaCode,
        ip: request.ip,
        session: true,
      });
      return signedIn(result, reply);
    },

    async passkeyList({ context, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      return { passkeys: (await serviceOf(auth).list(user.id)).map(shown) };
    },

    async passkeyRemove({ params, context, reply }) {
      noStore(reply);
      await auth.removePasskey(signedInUser(context), context.amr, params.id);
      return undefined;
    },
  };
}
