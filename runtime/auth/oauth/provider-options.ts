// The checks every provider's options share, at construction: its name (a URL path segment), client id and
// secret, scopes, endpoints (https:, or http: on loopback unless the issuer is away from it) and its
// email-domain rule. A bad value refuses to start with AUTH_OAUTH_PROVIDER_CONFIG naming the provider and
// the option.
import { isProviderName } from './callback-url.js';
import { providerConfigError } from './config-error.js';
import { checkedDomains } from './domains.js';
import { endpointRule, endpointUrl } from './loopback.js';

export interface DomainRule {
  allowedEmailDomains: readonly string[] | undefined;
  allowAnyEmailDomain: boolean | undefined;
}

export function checkedName(owner: string, name: unknown): string {
  if (!isProviderName(name)) {
    throw providerConfigError(
      owner,
      `name ${JSON.stringify(name)} must be lower-case letters, digits and dashes`,
    );
  }
  return name;
}

export function checkedClient(
  owner: string,
  clientId: unknown,
  clientSecret: unknown,
): { id: string; secret: string } {
  if (typeof clientId !== 'string' || clientId === '') {
    throw providerConfigError(owner, 'clientId must be a non-empty string');
  }
  if (typeof clientSecret !== 'string' || clientSecret === '') {
    throw providerConfigError(owner, 'clientSecret must be a non-empty string');
  }
  return { id: clientId, secret: clientSecret };
}

export function checkedScopes(
  owner: string,
  scopes: unknown,
  fallback: readonly string[],
): readonly string[] {
  const chosen = scopes ?? fallback;
  const valid =
    Array.isArray(chosen) &&
    chosen.length > 0 &&
    chosen.every((scope: unknown) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope));
  if (!valid) {
    throw providerConfigError(owner, 'scopes must be a non-empty list of scope names without spaces');
  }
  return Object.freeze([...new Set(chosen as string[])]);
}

/**
 * An endpoint option: https:, or http: on loopback, without credentials or fragment; when the provider's
 * `issuer` is given and away from this machine, https: away from it too.
 */
export function checkedEndpoint(owner: string, option: string, value: unknown, issuer?: string): string {
  const url = endpointUrl(value, issuer);
  if (url === undefined) {
    throw providerConfigError(
      owner,
      `${option} must be ${endpointRule(issuer)}; got ${JSON.stringify(value)}`,
    );
  }
  return url.href;
}

/** The domain rule: a list of domains, or `allowAnyEmailDomain: true`, or neither; never both. */
export function checkedDomainRule(owner: string, allowed: unknown, allowAny: unknown): DomainRule {
  if (allowAny !== undefined && typeof allowAny !== 'boolean') {
    throw providerConfigError(owner, 'allowAnyEmailDomain must be true or false');
  }
  if (allowed !== undefined && allowAny === true) {
    throw providerConfigError(
      owner,
      'allowedEmailDomains and allowAnyEmailDomain: true contradict each other; choose one',
    );
  }
  return {
    allowedEmailDomains: allowed === undefined ? undefined : checkedDomains(owner, allowed),
    allowAnyEmailDomain: allowAny as boolean | undefined,
  };
}

export function checkedFlag(owner: string, option: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') {
    throw providerConfigError(owner, `${option} must be true or false`);
  }
  return value as boolean | undefined;
}
