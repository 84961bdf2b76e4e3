// Which email domains a provider may sign in: `allowedEmailDomains` lists exact domains, matched without
// regard to case; no wildcards, no `@`, and a subdomain is allowed only when listed itself. A provider that
// asserts emails of any domain it likes (an OIDC or enterprise one) must say which it is trusted for when it
// sits beside other providers, or declare `allowAnyEmailDomain: true` on purpose (service.ts checks that).
import { providerConfigError } from './config-error.js';

/** A hostname: dot-separated labels of letters, digits and inner dashes, at least two labels. */
const DOMAIN =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The entries lower-cased, or AUTH_OAUTH_PROVIDER_CONFIG naming the first bad one. */
export function checkedDomains(owner: string, entries: unknown): readonly string[] {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw providerConfigError(owner, 'allowedEmailDomains must be a non-empty list of domains');
  }
  const domains = entries.map((entry: unknown) => {
    if (typeof entry !== 'string' || !DOMAIN.test(entry.toLowerCase())) {
      throw providerConfigError(
        owner,
        `allowedEmailDomains entry ${JSON.stringify(entry)} is not a domain (exact names like "example.com": no "@", no wildcard)`,
      );
    }
    return entry.toLowerCase();
  });
  return Object.freeze([...new Set(domains)]);
}

/** Whether `email` (already lower-cased) is at one of `domains`; any email when `domains` is undefined. */
export function emailDomainAllowed(email: string, domains: readonly string[] | undefined): boolean {
  if (domains === undefined) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return domains.some((allowed) => allowed === domain);
}
