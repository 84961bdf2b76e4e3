// The set of providers a service runs with, checked once at construction (AUTH_OAUTH_PROVIDER_CONFIG): a
// list (empty allowed), each an OAuthProvider (svckit's or an application's own), names unique, domain rules well
// formed, and, beside other providers, a domain rule on every OIDC or enterprise one: such a provider can
// assert an email of any domain, another provider's users' included, so among several it must say which
// domains it speaks for (or declare `allowAnyEmailDomain: true` on purpose). Alone it needs none.
import { providerConfigError } from './config-error.js';
import { checkedDomainRule, checkedName } from './provider-options.js';
import type { OAuthProvider } from './types.js';

/**
 * The providers by name, or AUTH_OAUTH_PROVIDER_CONFIG: not a list, an entry that is not a provider, a name used
 * twice, a bad domain rule, and, beside other providers, an OIDC or enterprise one without a domain rule (it
 * could assert an email of any domain, another provider's users' included).
 */
export function checkedProviders(owner: string, providers: unknown): ReadonlyMap<string, OAuthProvider> {
  // An empty list is allowed: a configuration whose providers are all unset (empty environment variables)
  // runs with none, and every sign-in is 404 AUTH_OAUTH_UNKNOWN_PROVIDER.
  if (!Array.isArray(providers)) throw providerConfigError(owner, 'providers must be a list of providers');
  const byName = new Map<string, OAuthProvider>();
  for (const provider of providers as unknown[]) {
    const candidate = provider as Partial<OAuthProvider> | null;
    if (
      typeof candidate?.authorizationUrl !== 'function' ||
      typeof candidate.exchange !== 'function' ||
      (candidate.kind !== 'oidc' && candidate.kind !== 'oauth2')
    ) {
      throw providerConfigError(
        owner,
        'every entry of providers must be an OAuthProvider (githubProvider(), …)',
      );
    }
    const name = checkedName(owner, candidate.name);
    const named = `provider "${name}"`;
    if (byName.has(name)) throw providerConfigError(owner, `two providers are named "${name}"`);
    const rule = checkedDomainRule(named, candidate.allowedEmailDomains, candidate.allowAnyEmailDomain);
    const needsRule = candidate.kind === 'oidc' || candidate.enterprise === true;
    if (
      providers.length > 1 &&
      needsRule &&
      rule.allowedEmailDomains === undefined &&
      rule.allowAnyEmailDomain !== true
    ) {
      throw providerConfigError(
        named,
        'beside other providers it must declare allowedEmailDomains (the domains it may sign in) or allowAnyEmailDomain: true',
      );
    }
    byName.set(
      name,
      rule.allowedEmailDomains === undefined
        ? (candidate as OAuthProvider)
        : withDomains(candidate as OAuthProvider, rule.allowedEmailDomains),
    );
  }
  return byName;
}

/** The provider with its domain list normalised (lower case), so the check at sign-in is an exact compare. */
function withDomains(provider: OAuthProvider, domains: readonly string[]): OAuthProvider {
  return Object.freeze({
    name: provider.name,
    kind: provider.kind,
    allowedEmailDomains: domains,
    allowAnyEmailDomain: provider.allowAnyEmailDomain,
    enterprise: provider.enterprise,
    authorizationUrl: (request, context) => provider.authorizationUrl(request, context),
    exchange: (exchange) => provider.exchange(exchange),
  } satisfies OAuthProvider);
}
