// The redirect URI of a provider: `<callbackBaseUrl>/auth/oauth/<provider>/callback`, built one way, so the
// URI sent to the consent screen and the one sent with the code are the same characters (providers compare
// them exactly). The base is the app's public URL, never the callback path. One trailing slash is dropped
// (`https://app.example/` and `https://app.example` give the same URI); anything else that would make two
// spellings of one base, or a URI a provider may refuse, is refused: a query, a fragment, credentials, two
// trailing slashes, a form the URL parser would rewrite (upper-case host, default port, dot segments), a
// scheme other than http(s). Plain http: is the app's own choice (its cookies follow the same rule): a code
// seen on the way is worthless without the PKCE verifier, which never leaves the server.
import { invalidOption } from '../../config/option-errors.js';

const OWNER = 'callbackUrl()';
/** Provider names are URL path segments: lower-case letters, digits and dashes. */
const PROVIDER_NAME = /^[a-z0-9-]{1,64}$/;

export function isProviderName(name: unknown): name is string {
  return typeof name === 'string' && PROVIDER_NAME.test(name);
}

/**
 * The app's base URL as callbackUrl uses it (one trailing slash dropped), or an OptionError (OPTION_INVALID)
 * "<owner>: <option> must be …; got …". `owner` and `option` name whoever took the value (a plugin checking
 * its option at construction), by default callbackUrl() and its argument.
 */
export function checkedBaseUrl(
  callbackBaseUrl: unknown,
  owner: string = OWNER,
  option: string = 'callbackBaseUrl',
): string {
  const expected = 'an absolute http(s) URL without query, fragment or credentials, in canonical form';
  if (typeof callbackBaseUrl !== 'string') {
    throw invalidOption(owner, option, expected, `got ${kindOf(callbackBaseUrl)}`);
  }
  const got = `got ${JSON.stringify(callbackBaseUrl)}`;
  const base = callbackBaseUrl.endsWith('/') ? callbackBaseUrl.slice(0, -1) : callbackBaseUrl;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw invalidOption(owner, option, expected, got);
  }
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  const plain = url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  const canonical = url.href === base || url.href === `${base}/`;
  if (!web || !plain || !canonical || base.endsWith('/') || base.includes('?') || base.includes('#')) {
    throw invalidOption(owner, option, expected, got);
  }
  // A mistake worth naming: the callback path given where the app's base URL belongs.
  if (/\/auth\/oauth(\/|$)/.test(url.pathname)) {
    throw invalidOption(owner, option, "the app's base URL, not the callback path", got);
  }
  return base;
}

/** A value that is not a string, for a refusal's message: its type, never its content. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** `<callbackBaseUrl>/auth/oauth/<provider>/callback`, character for character. */
export function callbackUrl(callbackBaseUrl: string, provider: string): string {
  if (!isProviderName(provider)) {
    throw invalidOption(OWNER, 'provider', 'a provider name of lower-case letters, digits and dashes');
  }
  return `${checkedBaseUrl(callbackBaseUrl)}/auth/oauth/${provider}/callback`;
}
