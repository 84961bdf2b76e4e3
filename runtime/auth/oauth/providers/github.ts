// GitHub sign-in: plain OAuth 2.0 (GitHub issues no ID token). The code is exchanged at
// https://github.com/login/oauth/access_token (asking for JSON), the person is read from
// https://api.github.com/user (the subject is the numeric account id, as a string: logins can be renamed and
// reused) and the email from https://api.github.com/user/emails: the primary one, verified as GitHub says.
// Without a primary email the sign-in fails.
import { optionKeys, rejectUnknownOptions } from '../../../config/known-options.js';
import { authorizationUrlOf } from '../authorize-url.js';
import { OAuthExchangeError } from '../exchange-error.js';
import { callProvider, jsonObject } from '../http.js';
import { profileFrom } from '../profile.js';
import { checkedClient, checkedScopes } from '../provider-options.js';
import { requestTokens } from '../token.js';
import type { CodeExchange, OAuthProfile, OAuthProvider } from '../types.js';

export const GITHUB_ENDPOINTS = Object.freeze({
  authorize: 'https://github.com/login/oauth/authorize',
  token: 'https://github.com/login/oauth/access_token',
  user: 'https://api.github.com/user',
  emails: 'https://api.github.com/user/emails',
});
const DEFAULT_SCOPES: readonly string[] = Object.freeze(['read:user', 'user:email']);

export interface GithubProviderOptions {
  clientId: string;
  clientSecret: string;
  /** Default read:user user:email (the emails list needs user:email). */
  scopes?: readonly string[];
}

const KEYS = optionKeys<GithubProviderOptions>({ clientId: true, clientSecret: true, scopes: true });
const OWNER = 'githubProvider()';

export function githubProvider(options: GithubProviderOptions): OAuthProvider {
  rejectUnknownOptions(options, KEYS, OWNER);
  const client = checkedClient(OWNER, options?.clientId, options?.clientSecret);
  const scopes = checkedScopes(OWNER, options?.scopes, DEFAULT_SCOPES);
  return Object.freeze({
    name: 'github',
    kind: 'oauth2' as const,
    async authorizationUrl(request) {
      return authorizationUrlOf(GITHUB_ENDPOINTS.authorize, client.id, scopes, request, false);
    },
    async exchange(exchange: CodeExchange): Promise<OAuthProfile> {
      const tokens = await requestTokens(
        {
          url: GITHUB_ENDPOINTS.token,
          clientId: client.id,
          clientSecret: client.secret,
          auth: 'client_secret_post',
        },
        exchange,
      );
      const token = tokens.access_token;
      if (typeof token !== 'string' || token === '') {
        throw new OAuthExchangeError('GitHub answered no access_token');
      }
      const headers = {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'user-agent': 'svckit',
        'x-github-api-version': '2022-11-28',
      };
      const user = jsonObject(
        (await callProvider(exchange, 'GitHub user API', GITHUB_ENDPOINTS.user, { headers })).json,
        'GitHub user API',
      );
      const emails = (await callProvider(exchange, 'GitHub emails API', GITHUB_ENDPOINTS.emails, { headers }))
        .json;
      if (!Array.isArray(emails)) throw new OAuthExchangeError('GitHub emails API answered no list');
      const primary: unknown = emails.find(
        (entry: unknown) =>
          entry !== null && typeof entry === 'object' && (entry as { primary?: unknown }).primary === true,
      );
      if (primary === undefined) throw new OAuthExchangeError('GitHub account has no primary email');
      const { email, verified } = primary as { email?: unknown; verified?: unknown };
      return profileFrom('github', { subject: subjectOf(user.id), email, verified });
    },
  } satisfies OAuthProvider);
}

/** The account id as a string; undefined (refused) unless it is a positive whole number. */
function subjectOf(id: unknown): string | undefined {
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? String(id) : undefined;
}
