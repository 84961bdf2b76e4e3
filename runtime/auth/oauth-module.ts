// `modules.auth.oauth` in svc.config.yaml: the providers (by name: `oidc` ones discovered from their issuer,
// the `google` and `github` presets), the rules of the flow, and the routes' settings, built into an
// OAuthService and oauthPlugin(). A provider whose clientId (or oidc issuer) is empty, an optional `${VAR:-}`
// left unset, is left out: a service may offer a provider only where the environment configures it.
import { invalidSetting, rejectUnknownSettings } from '../config/module-settings.js';
import type { Auth } from './auth.js';
import { oauthPlugin } from './http/oauth-plugin.js';
import { OAUTH_ROUTE_IDS } from './http/oauth-routes.js';
import { discoverOidcProvider } from './oauth/providers/oidc.js';
import { githubProvider } from './oauth/providers/github.js';
import { googleProvider } from './oauth/providers/google.js';
import { OAuthService } from './oauth/service.js';
import type { OAuthProvider } from './oauth/types.js';
import type { Plugin } from '../app/app.js';
import type { ChallengeStore } from './passkeys/store.js';

const OAUTH_SETTINGS = [
  'providers',
  'callbackBaseUrl',
  'successRedirect',
  'subjectConflict',
  'mfa',
  'timeoutMs',
  'rateLimit',
];
const PROVIDER_SETTINGS = [
  'type',
  'issuer',
  'clientId',
  'clientSecret',
  'scopes',
  'allowedEmailDomains',
  'allowAnyEmailDomain',
];
const PRESET_SETTINGS = ['type', 'clientId', 'clientSecret', 'scopes'];
const TYPES = ['oidc', 'google', 'github'] as const;
type ProviderType = (typeof TYPES)[number];

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An optional string setting: absent, or a string (empty counts as absent: an unset `${VAR:-}`). */
function text(settings: Record<string, unknown>, name: string, where: string): string | undefined {
  const value = settings[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidSetting('auth', `${where}.${name} must be a string`);
  return value === '' ? undefined : value;
}

function stringList(settings: Record<string, unknown>, name: string, where: string): string[] | undefined {
  const value = settings[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw invalidSetting('auth', `${where}.${name} must be a list of strings`);
  }
  return value as string[];
}

function providerOf(name: string, settings: unknown): OAuthProvider | undefined {
  const where = `oauth.providers.${name}`;
  if (!isMapping(settings)) throw invalidSetting('auth', `${where} must be a mapping { clientId, ... }`);
  const type = (settings.type ?? (name === 'google' || name === 'github' ? name : 'oidc')) as ProviderType;
  if (!TYPES.includes(type)) throw invalidSetting('auth', `${where}.type must be oidc, google or github`);
  rejectUnknownSettings(settings, type === 'oidc' ? PROVIDER_SETTINGS : PRESET_SETTINGS, `auth.${where}`);
  const clientId = text(settings, 'clientId', where);
  const clientSecret = text(settings, 'clientSecret', where);
  const scopes = stringList(settings, 'scopes', where);
  if (type !== 'oidc') {
    if (clientId === undefined) return undefined;
    if (clientSecret === undefined) throw invalidSetting('auth', `${where}.clientSecret must be set`);
    const options = { clientId, clientSecret, ...(scopes === undefined ? {} : { scopes }) };
    return type === 'google' ? googleProvider(options) : githubProvider(options);
  }
  const issuer = text(settings, 'issuer', where);
  if (issuer === undefined || clientId === undefined) return undefined;
  if (clientSecret === undefined) throw invalidSetting('auth', `${where}.clientSecret must be set`);
  const allowedEmailDomains = stringList(settings, 'allowedEmailDomains', where);
  const allowAny = settings.allowAnyEmailDomain;
  if (allowAny !== undefined && typeof allowAny !== 'boolean') {
    throw invalidSetting('auth', `${where}.allowAnyEmailDomain must be true or false`);
  }
  return discoverOidcProvider({
    name,
    issuer,
    clientId,
    clientSecret,
    ...(scopes === undefined ? {} : { scopes }),
    ...(allowedEmailDomains === undefined ? {} : { allowedEmailDomains }),
    ...(allowAny === undefined ? {} : { allowAnyEmailDomain: allowAny }),
  });
}

export interface OAuthModuleContext {
  auth: Auth;
  /** The signing secret: it signs states and derives the PKCE verifiers and nonces. */
  secret: string;
  /** States and second-factor tickets (the database or Redis when there is one: every process reads them). */
  challenges?: ChallengeStore | undefined;
  /** Route ids `modules.auth.routes` (or the application) leaves out; those of this feature are not mounted. */
  omit?: readonly string[];
}

/** The plugin `modules.auth.oauth` configures, or undefined when the setting is absent. */
export function oauthModule(setting: unknown, context: OAuthModuleContext): Plugin | undefined {
  if (setting === undefined) return undefined;
  if (!isMapping(setting)) throw invalidSetting('auth', 'oauth must be a mapping { providers, ... }');
  rejectUnknownSettings(setting, OAUTH_SETTINGS, 'auth.oauth');
  if (!isMapping(setting.providers)) {
    throw invalidSetting('auth', 'oauth.providers must map provider names to their settings');
  }
  const providers = Object.entries(setting.providers).flatMap(([name, settings]) => {
    const provider = providerOf(name, settings);
    return provider === undefined ? [] : [provider];
  });
  for (const [name, allowed] of [
    ['subjectConflict', 'link'],
    ['mfa', 'skip'],
  ] as const) {
    if (setting[name] !== undefined && setting[name] !== allowed) {
      throw invalidSetting('auth', `oauth.${name} must be ${allowed} or absent`);
    }
  }
  const timeoutMs = setting.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1 || (timeoutMs as number) > 600_000)
  ) {
    throw invalidSetting('auth', 'oauth.timeoutMs must be a whole number of ms from 1 to 600000');
  }
  if (setting.rateLimit !== undefined && setting.rateLimit !== false) {
    throw invalidSetting('auth', 'oauth.rateLimit must be false or absent');
  }
  const service = new OAuthService({
    secret: context.secret,
    providers,
    ...(setting.subjectConflict === 'link' ? { subjectConflict: 'link' as const } : {}),
    ...(setting.mfa === 'skip' ? { mfa: 'skip' as const } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
    ...(context.challenges === undefined ? {} : { states: context.challenges }),
  });
  const callbackBaseUrl = text(setting, 'callbackBaseUrl', 'oauth');
  const successRedirect = text(setting, 'successRedirect', 'oauth');
  return oauthPlugin({
    auth: context.auth,
    service,
    ...(callbackBaseUrl === undefined ? {} : { callbackBaseUrl }),
    ...(successRedirect === undefined ? {} : { successRedirect }),
    ...(setting.rateLimit === false ? { rateLimit: false as const } : {}),
    ...(context.challenges === undefined ? {} : { tickets: context.challenges }),
    omit: OAUTH_ROUTE_IDS.filter((id) => context.omit?.includes(id) === true),
  });
}
