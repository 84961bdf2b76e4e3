// The `value; name=token; name="quoted string"` grammar (RFC 9110 §5.6) shared by the request's Content-Type
// and a part's Content-Type and Content-Disposition. Strict: anything that does not fit is refused rather
// than guessed at, because a lenient reader and the application's own idea of the header can disagree.

/** RFC 9110 tchar, indexed by char code. */
const TOKEN_CHARS = new Uint8Array(128);
for (const char of "!#$%&'*+-.^_`|~") TOKEN_CHARS[char.charCodeAt(0)] = 1;
for (let code = 0x30; code <= 0x39; code++) TOKEN_CHARS[code] = 1;
for (let code = 0x41; code <= 0x5a; code++) TOKEN_CHARS[code] = 1;
for (let code = 0x61; code <= 0x7a; code++) TOKEN_CHARS[code] = 1;

function isTokenChar(code: number): boolean {
  return code < 128 && TOKEN_CHARS[code] === 1;
}

/** A non-empty RFC 9110 token. */
export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isTokenChar(text.charCodeAt(i))) return false;
  return true;
}

/** `type/subtype`, both tokens; parameters not included. */
export function isMediaType(text: string): boolean {
  const slash = text.indexOf('/');
  return slash > 0 && isToken(text.slice(0, slash)) && isToken(text.slice(slash + 1));
}

/** A header value split into the part before the first `;` and its parameters in order (names lower-cased). */
export interface ParameterizedValue {
  /** Trimmed, case kept. */
  essence: string;
  params: Array<readonly [name: string, value: string]>;
}

const SPACE = 0x20;
const TAB = 0x09;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipSpaces(text: string, index: number): number {
  let at = index;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code !== SPACE && code !== TAB) break;
    at++;
  }
  return at;
}

/** qdtext and the second character of a quoted-pair: HTAB, SP, visible ASCII and anything non-ASCII. */
function isQuotedTextChar(code: number): boolean {
  return code === TAB || (code >= 0x20 && code !== 0x7f);
}

/**
 * Reads a quoted-string starting at the opening quote; returns the unescaped value and the index after the
 * closing quote, or undefined when it is unterminated or holds a control character. `\"` and `\\` are
 * unescaped; a backslash before any other character is kept, because browsers send filenames unescaped and an
 * old client's `C:\dir\name.txt` would otherwise lose its separators.
 */
function readQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  let runStart = start + 1;
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) return { value: value + text.slice(runStart, at), end: at + 1 };
    if (code === BACKSLASH) {
      const next = text.charCodeAt(at + 1);
      if (Number.isNaN(next) || !isQuotedTextChar(next)) return undefined;
      if (next === QUOTE || next === BACKSLASH) {
        value += text.slice(runStart, at);
        runStart = at + 1;
      }
      at++;
      continue;
    }
    if (!isQuotedTextChar(code)) return undefined;
  }
  return undefined;
}

/**
 * Splits `essence *( OWS ";" OWS name "=" ( token / quoted-string ) )`. Empty parameters (`;;`, a trailing
 * `;`) are tolerated; whitespace around `=`, a missing value or stray characters make it undefined.
 */
export function parseParameterized(text: string): ParameterizedValue | undefined {
  const firstSemicolon = text.indexOf(';');
  const essence = (firstSemicolon === -1 ? text : text.slice(0, firstSemicolon)).trim();
  const params: Array<readonly [string, string]> = [];
  if (firstSemicolon === -1) return { essence, params };
  let at = firstSemicolon;
  while (at < text.length) {
    // `at` is on a semicolon.
    at = skipSpaces(text, at + 1);
    if (at >= text.length) break;
    if (text.charCodeAt(at) === SEMICOLON) continue;
    const nameStart = at;
    while (at < text.length && isTokenChar(text.charCodeAt(at))) at++;
    if (at === nameStart || text.charCodeAt(at) !== EQUALS) return undefined;
    const name = text.slice(nameStart, at).toLowerCase();
    at++;
    let value: string;
    if (text.charCodeAt(at) === QUOTE) {
      const quoted = readQuoted(text, at);
      if (quoted === undefined) return undefined;
      value = quoted.value;
      at = quoted.end;
    } else {
      const valueStart = at;
      while (at < text.length && isTokenChar(text.charCodeAt(at))) at++;
      if (at === valueStart) return undefined;
      value = text.slice(valueStart, at);
    }
    params.push([name, value]);
    at = skipSpaces(text, at);
    if (at < text.length && text.charCodeAt(at) !== SEMICOLON) return undefined;
  }
  return { essence, params };
}

/** The values of one parameter name, in order. */
export function paramValues(value: ParameterizedValue, name: string): string[] {
  const found: string[] = [];
  for (const [paramName, paramValue] of value.params) if (paramName === name) found.push(paramValue);
  return found;
}

/** True when a parameter name appears more than once. */
export function hasRepeatedParam(value: ParameterizedValue): boolean {
  const seen = new Set<string>();
  for (const [name] of value.params) {
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}
