// Google sign-in: OpenID Connect discovered from https://accounts.google.com. Google is trusted for the email
// domains of the accounts it holds (it says whether it verified each), so the preset declares
// `allowAnyEmailDomain` and may sit beside other providers without a domain list.
import { optionKeys, rejectUnknownOptions } from '../../../config/known-options.js';
import type { OAuthProvider } from '../types.js';
import { discoverOidcProvider } from './oidc.js';

export const GOOGLE_ISSUER = 'https://accounts.google.com';

export interface GoogleProviderOptions {
  clientId: string;
  clientSecret: string;
  /** Default openid email profile. */
  scopes?: readonly string[];
}

const KEYS = optionKeys<GoogleProviderOptions>({ clientId: true, clientSecret: true, scopes: true });

export function googleProvider(options: GoogleProviderOptions): OAuthProvider {
  rejectUnknownOptions(options, KEYS, 'googleProvider()');
  return discoverOidcProvider({
    name: 'google',
    issuer: GOOGLE_ISSUER,
    clientId: options?.clientId,
    clientSecret: options?.clientSecret,
    ...(options?.scopes === undefined ? {} : { scopes: options.scopes }),
    allowAnyEmailDomain: true,
  });
}
