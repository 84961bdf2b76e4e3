// The auth module's events on the application hook bus. Payloads carry PublicUser, never
// a hash, and no secret other than the one-time token the event exists to deliver.
import type { ApiKeyView } from './apikeys/service.js';
import type { PasskeyView } from './passkeys/service.js';
import type { PublicUser } from './stores/users.js';

/** Why a sign-in failed, for auth:login_failed listeners (never shown to the client). */
export type LoginFailureReason =
  'unknown_email' | 'wrong_password' | 'no_password' | 'mfa_required' | 'mfa_invalid' | 'locked';

export interface AuthEventPayloads {
  'auth:registered': { user: PublicUser };
  /** `secondFactor`: how the second factor was given, when the account has one (a recovery code is spent). */
  'auth:login': {
    user: PublicUser;
    amr: string[];
    ip: string | undefined;
    secondFactor?: 'totp' | 'recovery';
  };
  'auth:login_failed': { email: string; reason: LoginFailureReason; ip: string | undefined };
  'auth:logout': { userId: string | undefined; kind: 'refresh' | 'session' };
  /** The application mails `token` (in a link) to `user.email`. */
  'auth:verify_requested': { user: PublicUser; token: string; expiresAt: number };
  'auth:email_verified': { user: PublicUser };
  /** The application mails `token` (in a reset link) to `user.email`. */
  'auth:password_reset_requested': { user: PublicUser; token: string; expiresAt: number };
  'auth:password_reset': { user: PublicUser };
  'auth:mfa_enabled': { user: PublicUser };
  'auth:mfa_disabled': { user: PublicUser };
  /** A passkey was added to the account: an application tells its owner, as for a new second factor. */
  'auth:passkey_added': { user: PublicUser; passkey: PasskeyView };
  'auth:passkey_removed': { user: PublicUser; passkeyId: string };
  /** A key was issued through the routes: who, and the key's record (never the key). */
  'auth:apikey_issued': { user: PublicUser; key: ApiKeyView };
  'auth:apikey_revoked': { user: PublicUser; keyId: string };
  /** A provider identity was linked to the account (its first social sign-in, or a second subject allowed). */
  'auth:account_linked': { user: PublicUser; provider: string; subject: string };
  'auth:account_unlinked': { user: PublicUser; provider: string; subject: string };
  /**
   * An account that never verified its email was taken over by the email's owner through social sign-in:
   * its password, sessions, tokens, keys, passkeys, MFA and links were revoked. `provider`: the one signed in
   * with, when an identity was given.
   */
  'auth:account_adopted': { user: PublicUser; provider: string | undefined };
}

export type AuthEventName = keyof AuthEventPayloads;

/** Every auth event, for forwarding an Auth's own bus to the app's. */
export const AUTH_EVENT_NAMES: readonly AuthEventName[] = [
  'auth:registered',
  'auth:login',
  'auth:login_failed',
  'auth:logout',
  'auth:verify_requested',
  'auth:email_verified',
  'auth:password_reset_requested',
  'auth:password_reset',
  'auth:mfa_enabled',
  'auth:mfa_disabled',
  'auth:passkey_added',
  'auth:passkey_removed',
  'auth:apikey_issued',
  'auth:apikey_revoked',
  'auth:account_linked',
  'auth:account_unlinked',
  'auth:account_adopted',
];

declare module '../app/hooks.js' {
  // Declaration merging: the auth events join the hook bus's typed event map.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HookEvents extends AuthEventPayloads {}
}
