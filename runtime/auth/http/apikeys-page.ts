// The API-key page: a signed-in user lists their keys, creates one (its secret shown once, with a copy button)
// and revokes keys, in one HTML page talking to the JSON routes (`<apiBase>/apikeys`, `/auth/login`,
// `/auth/logout`) with fetch() and the session cookie only: it keeps no token anywhere, and ignores the tokens
// the login answer carries. Signed out (GET /apikeys answers 401), it shows a sign-in form, with a code field
// once the account asks for a second factor.
// The page runs under a strict Content-Security-Policy: its one script and one style are allowed by their
// SHA-256 hashes, so nothing injected into it could run, and it has no inline handlers or style attributes,
// which a hash cannot allow. What the server puts in it (title, scopes, apiBase) is HTML-escaped, and reaches
// the script through data- attributes and the markup, never as script text, so the hashes stay fixed.
import { createHash } from 'node:crypto';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { ALL_SCOPES, isScope } from '../apikeys/scopes.js';

/** Stable ids a browser test drives the page by. */
export const API_KEYS_PAGE_IDS = Object.freeze({
  app: 'apikeys-app',
  message: 'message',
  signInSection: 'sign-in-section',
  signInForm: 'sign-in-form',
  email: 'email',
  password: 'password',
  mfaField: 'mfa-field',
  mfaCode: 'mfa-code',
  signIn: 'sign-in-button',
  keysSection: 'keys-section',
  signOut: 'sign-out-button',
  createForm: 'create-form',
  name: 'new-key-name',
  scopes: 'new-key-scopes',
  expires: 'new-key-expires',
  create: 'create-button',
  secretPanel: 'secret-panel',
  secret: 'secret',
  copy: 'copy-button',
  done: 'done-button',
  keysHeading: 'keys-heading',
  keyList: 'key-list',
  noKeys: 'no-keys',
} as const);

/** Classes of the parts of each key's row in the list (rows are built by the script, so they carry no ids). */
export const API_KEYS_ROW_CLASSES = Object.freeze({
  row: 'key',
  name: 'key-name',
  preview: 'key-preview',
  scopes: 'key-scopes',
  expires: 'key-expires',
  lastUsed: 'key-last-used',
  revoke: 'key-revoke',
} as const);

export interface ApiKeysPageOptions {
  /**
   * Where the JSON routes are: '' (the page's own origin, the default), a path (`/api`) or an http(s) URL
   * (`https://api.example.com/v1`). Requests go to `<apiBase>/apikeys`, `<apiBase>/auth/login`, ….
   */
  apiBase?: string;
  /** The page's title and heading. Default "API keys". */
  title?: string;
  /** The scopes offered as checkboxes: those the ApiKeys service offers. Default `['*']`. */
  scopes?: readonly string[];
}

const PAGE_OPTION_KEYS = optionKeys<ApiKeysPageOptions>({ apiBase: true, title: true, scopes: true });
const MAX_TITLE_LENGTH = 200;
const DEFAULT_TITLE = 'API keys';

const STYLE = `
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 40rem; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 0 0 0.5rem; }
h3 { font-size: 1rem; margin: 0 0 0.25rem; overflow-wrap: anywhere; }
form, .panel { border: 1px solid #ccc; border-radius: 6px; margin: 1rem 0; padding: 1rem; }
fieldset { border: 0; margin: 0 0 0.75rem; padding: 0; }
legend { font-weight: 600; padding: 0; }
label { display: block; font-weight: 600; }
input { display: block; font: inherit; margin: 0.25rem 0 0.75rem; max-width: 100%; padding: 0.4rem; width: 100%; }
.choice { align-items: center; display: flex; gap: 0.5rem; }
.choice input { margin: 0.25rem 0; width: auto; }
.choice label { font-weight: normal; overflow-wrap: anywhere; }
button { font: inherit; margin: 0.25rem 0.5rem 0.25rem 0; min-height: 2.5rem; padding: 0.4rem 0.9rem; }
:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
.bar { display: flex; justify-content: flex-end; }
#message { min-height: 1.5rem; }
#message[data-kind='error'] { color: #b00020; font-weight: 600; }
#secret { font-family: ui-monospace, monospace; }
ul { list-style: none; margin: 0; padding: 0; }
li.key { padding: 0.75rem 0; }
li.key + li.key { border-top: 1px solid #ddd; }
dl { display: grid; gap: 0 0.75rem; grid-template-columns: max-content minmax(0, 1fr); margin: 0 0 0.5rem; }
dt { color: #555; }
dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
`;

// Plain browser JavaScript, kept free of template literals and of `</`: it is embedded in the HTML as is, and
// its exact text is what the CSP hash covers. Every answer of the routes is JSON (or empty for 204); errors
// carry `{ error: { code, message, issues? } }`. The DOM is built with textContent only, never from markup.
const SCRIPT = String.raw`
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const app = byId('apikeys-app');
  const apiBase = app.dataset.apiBase || '';
  const credentials = app.dataset.credentials === 'include' ? 'include' : 'same-origin';
  const message = byId('message');
  const signInSection = byId('sign-in-section');
  const signInForm = byId('sign-in-form');
  const email = byId('email');
  const password = byId('password');
  const mfaField = byId('mfa-field');
  const mfaCode = byId('mfa-code');
  const keysSection = byId('keys-section');
  const createForm = byId('create-form');
  const nameInput = byId('new-key-name');
  const expiresInput = byId('new-key-expires');
  const secretPanel = byId('secret-panel');
  const secret = byId('secret');
  const keysHeading = byId('keys-heading');
  const keyList = byId('key-list');
  const noKeys = byId('no-keys');

  const show = (kind, text) => {
    message.dataset.kind = kind;
    message.textContent = text;
  };

  // A refused call: the status, and the code, message and issues of the error answer.
  const failure = (status, error) => {
    const problem = new Error(error.message || error.code);
    problem.status = status;
    problem.code = error.code;
    problem.issues = Array.isArray(error.issues) ? error.issues : [];
    return problem;
  };

  const call = async (method, path, body) => {
    const init = { method, credentials, headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(apiBase + path, init);
    const text = await response.text();
    let data;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!response.ok) {
      const error = data && data.error ? data.error : { code: 'HTTP_' + response.status, message: 'The server answered ' + response.status + '.' };
      throw failure(response.status, error);
    }
    return data;
  };

  // A problem the page found itself, shown as it is.
  const notice = (text) => {
    const problem = new Error(text);
    problem.notice = true;
    return problem;
  };

  const describe = (error) => {
    if (error && error.notice) return error.message;
    if (!error || error.code === undefined) return 'The request failed: ' + (error && error.message ? error.message : String(error));
    let text = error.code + ': ' + error.message;
    for (const issue of error.issues) text += ' ' + (issue.path ? issue.path + ': ' : '') + issue.message;
    return text;
  };

  const pad = (n) => String(n).padStart(2, '0');
  // A moment in the user's time zone, as a <time>; absent values read "never".
  const moment = (ms) => {
    if (typeof ms !== 'number') return document.createTextNode('never');
    const date = new Date(ms);
    const time = document.createElement('time');
    time.dateTime = date.toISOString();
    time.textContent = date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' ' + pad(date.getHours()) + ':' + pad(date.getMinutes());
    return time;
  };

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const row = (key) => {
    const item = element('li', 'key');
    item.dataset.keyId = key.id;
    const label = key.name ? key.name : '(unnamed key)';
    item.append(element('h3', 'key-name', label));
    const list = element('dl');
    const entry = (term, className, value) => {
      const dd = element('dd', className);
      dd.append(value);
      list.append(element('dt', '', term), dd);
    };
    entry('Key', 'key-preview', element('code', '', key.start + '\u2026' + key.last4));
    entry('Scopes', 'key-scopes', key.scopes.join(' '));
    entry('Expires', 'key-expires', moment(key.expiresAt));
    entry('Last used', 'key-last-used', moment(key.lastUsedAt));
    item.append(list);
    const revoke = element('button', 'key-revoke', 'Revoke');
    revoke.type = 'button';
    revoke.setAttribute('aria-label', 'Revoke ' + label + ' (' + key.start + '\u2026' + key.last4 + ')');
    revoke.addEventListener('click', run(async () => {
      await call('DELETE', '/apikeys/' + encodeURIComponent(key.id));
      await loadKeys();
      keysHeading.focus();
      return 'Key revoked: ' + label + '.';
    }));
    item.append(revoke);
    return item;
  };

  const hideSecret = () => {
    secret.value = '';
    secretPanel.hidden = true;
  };

  const showSignIn = () => {
    hideSecret();
    keyList.replaceChildren();
    keysSection.hidden = true;
    signInSection.hidden = false;
    password.value = '';
    mfaCode.value = '';
    mfaCode.required = false;
    mfaField.hidden = true;
    app.dataset.state = 'signed-out';
    email.focus();
  };

  // The caller's keys, or the sign-in form when the session is missing or over: true when signed in.
  const loadKeys = async () => {
    let answer;
    try {
      answer = await call('GET', '/apikeys');
    } catch (error) {
      if (error.status === 401) {
        showSignIn();
        return false;
      }
      throw error;
    }
    keyList.replaceChildren(...answer.keys.map(row));
    noKeys.hidden = answer.keys.length > 0;
    signInSection.hidden = true;
    keysSection.hidden = false;
    app.dataset.state = 'signed-in';
    return true;
  };

  // Runs one action at a time (a second click while one runs is ignored; buttons stay enabled so that focus
  // stays on them), then shows the outcome in the live region. An action refused for want of a session (it
  // ended elsewhere) goes back to the sign-in form.
  let running = false;
  function run(action) {
    return async (event) => {
      if (event) event.preventDefault();
      if (running) return;
      running = true;
      app.setAttribute('aria-busy', 'true');
      try {
        const outcome = await action(event);
        if (outcome !== undefined) show('ok', outcome);
      } catch (error) {
        if (error && error.status === 401 && error.code !== 'AUTH_MFA_REQUIRED' && error.code !== 'AUTH_INVALID_CREDENTIALS') showSignIn();
        show('error', describe(error));
      } finally {
        running = false;
        app.removeAttribute('aria-busy');
      }
    };
  }

  // The answer's tokens are not kept: the session cookie the login sets is the page's only credential.
  signInForm.addEventListener('submit', run(async () => {
    const body = { email: email.value.trim(), password: password.value };
    const code = mfaCode.value.trim();
    if (!mfaField.hidden && code !== '') body.mfaCode = code;
    try {
      await call('POST', '/auth/login', body);
    } catch (error) {
      if (error.code === 'AUTH_MFA_REQUIRED') {
        mfaField.hidden = false;
        mfaCode.required = true;
        mfaCode.focus();
        return 'Enter the code from your authenticator app (or a recovery code).';
      }
      throw error;
    }
    password.value = '';
    if (!(await loadKeys())) throw notice('Signed in, but the session cookie did not reach the API.');
    keysHeading.focus();
    return 'Signed in.';
  }));

  byId('sign-out-button').addEventListener('click', run(async () => {
    await call('POST', '/auth/logout');
    showSignIn();
    return 'Signed out.';
  }));

  // The end of the chosen day in the user's time zone, as Unix ms.
  const endOfDay = (value) => {
    const [year, month, day] = value.split('-').map(Number);
    const end = new Date(0);
    end.setFullYear(year, month - 1, day);
    end.setHours(23, 59, 59, 999);
    return end.getTime();
  };

  createForm.addEventListener('submit', run(async () => {
    const scopes = [...createForm.querySelectorAll('input[name=scope]:checked')].map((box) => box.value);
    if (scopes.length === 0) {
      createForm.querySelector('input[name=scope]').focus();
      throw notice('Pick at least one scope.');
    }
    const body = { scopes };
    const name = nameInput.value.trim();
    if (name !== '') body.name = name;
    if (expiresInput.value !== '') body.expiresAt = endOfDay(expiresInput.value);
    const created = await call('POST', '/apikeys', body);
    createForm.reset();
    await loadKeys();
    secret.value = created.key;
    secretPanel.hidden = false;
    secret.focus();
    secret.select();
    return 'Key created. Copy it now: it will not be shown again.';
  }));

  byId('copy-button').addEventListener('click', run(async () => {
    try {
      await navigator.clipboard.writeText(secret.value);
    } catch {
      secret.focus();
      secret.select();
      throw notice('Copying failed: the key is selected, copy it yourself.');
    }
    return 'Key copied.';
  }));

  byId('done-button').addEventListener('click', () => {
    hideSecret();
    nameInput.focus();
    show('ok', 'The key is hidden now.');
  });

  run(async () => {
    await loadKeys();
    return undefined;
  })();
})();
`;

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

const SCRIPT_SOURCE = sha256Source(SCRIPT);
const STYLE_SOURCE = sha256Source(STYLE);

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in a double-quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

interface PageSettings {
  apiBase: string;
  /** The origin of an absolute apiBase; undefined for the page's own. */
  apiOrigin: string | undefined;
  title: string;
  scopes: readonly string[];
}

/** The options checked, for `owner`: what both the page and its CSP are built from. */
function pageSettings(options: unknown, owner: string): PageSettings {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(owner);
  rejectUnknownOptions(options, PAGE_OPTION_KEYS, owner);
  const given = options as ApiKeysPageOptions;
  const { apiBase, apiOrigin } = checkApiBase(given.apiBase, owner);
  const title = given.title ?? DEFAULT_TITLE;
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE_LENGTH) {
    throw invalidOption(owner, 'title', `a text of 1 to ${MAX_TITLE_LENGTH} characters`);
  }
  const scopes = given.scopes ?? [ALL_SCOPES];
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope)) {
    throw invalidOption(owner, 'scopes', "a list of scopes like 'reports:read' (or '*')");
  }
  if (new Set(scopes).size !== scopes.length) throw invalidOption(owner, 'scopes', 'each scope once');
  return { apiBase, apiOrigin, title, scopes };
}

/**
 * '' (same origin), a path ("/api": not "//host", which is another origin), or an http(s) URL with no
 * credentials, query or fragment. A trailing "/" is dropped: route paths are appended to it.
 */
function checkApiBase(value: unknown, owner: string): { apiBase: string; apiOrigin: string | undefined } {
  const expected = '\'\', a path starting with "/" or an http(s) URL';
  if (value === undefined || value === '') return { apiBase: '', apiOrigin: undefined };
  if (typeof value !== 'string' || /[\s\\?#]/.test(value) || /[^\x21-\x7e]/.test(value)) {
    throw invalidOption(owner, 'apiBase', expected);
  }
  if (value.startsWith('/')) {
    if (value.startsWith('//'))
      throw invalidOption(owner, 'apiBase', expected, 'got a protocol-relative URL');
    return { apiBase: value.replace(/\/+$/, ''), apiOrigin: undefined };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidOption(owner, 'apiBase', expected);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    throw invalidOption(owner, 'apiBase', expected);
  }
  return { apiBase: (url.origin + url.pathname).replace(/\/+$/, ''), apiOrigin: url.origin };
}

function scopeChoices(scopes: readonly string[]): string {
  return scopes
    .map((scope, index) => {
      const text = escapeHtml(scope);
      return `<div class="choice"><input id="scope-${index}" name="scope" type="checkbox" value="${text}"><label for="scope-${index}">${text}</label></div>`;
    })
    .join('\n');
}

function pageHtml(settings: PageSettings): string {
  const title = escapeHtml(settings.title);
  const credentials = settings.apiOrigin === undefined ? 'same-origin' : 'include';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="apikeys-app" data-api-base="${escapeHtml(settings.apiBase)}" data-credentials="${credentials}" data-state="loading">
<h1>${title}</h1>
<p id="message" role="status" aria-live="polite"></p>
<section id="sign-in-section" aria-labelledby="sign-in-heading" hidden>
<form id="sign-in-form">
<h2 id="sign-in-heading">Sign in</h2>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div id="mfa-field" hidden>
<label for="mfa-code">Authentication code</label>
<input id="mfa-code" name="mfaCode" autocomplete="one-time-code" inputmode="text" maxlength="64">
</div>
<button id="sign-in-button" type="submit">Sign in</button>
</form>
</section>
<section id="keys-section" aria-labelledby="keys-heading" hidden>
<div class="bar">
<button id="sign-out-button" type="button">Sign out</button>
</div>
<form id="create-form" aria-labelledby="create-heading">
<h2 id="create-heading">Create a key</h2>
<label for="new-key-name">Name (optional)</label>
<input id="new-key-name" name="name" maxlength="100" autocomplete="off">
<fieldset id="new-key-scopes">
<legend>Scopes (at least one)</legend>
${scopeChoices(settings.scopes)}
</fieldset>
<label for="new-key-expires">Expires at the end of (optional)</label>
<input id="new-key-expires" name="expires" type="date">
<button id="create-button" type="submit">Create key</button>
</form>
<div id="secret-panel" class="panel" hidden>
<label for="secret">Your new key</label>
<input id="secret" name="secret" readonly autocomplete="off" spellcheck="false">
<p>Copy it now: it will not be shown again.</p>
<button id="copy-button" type="button">Copy</button>
<button id="done-button" type="button">Done</button>
</div>
<div class="panel">
<h2 id="keys-heading" tabindex="-1">Your keys</h2>
<p id="no-keys">No keys yet.</p>
<ul id="key-list"></ul>
</div>
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The page's HTML, for serving it yourself: send it with `content-type: text/html; charset=utf-8` and
 * `content-security-policy: apiKeysPageCsp(<the same apiBase>)`, on an origin whose session cookie the API
 * reads. Throws an OptionError for options it cannot take.
 */
export function apiKeysPageHtml(options: ApiKeysPageOptions = {}): string {
  return pageHtml(pageSettings(options, 'apiKeysPageHtml()'));
}

/**
 * The page's Content-Security-Policy: its script and style by hash, requests to its own origin (and the
 * origin of an absolute apiBase), nothing else loaded, no form submission, base URL or framing. Takes the
 * options the page was built with; only apiBase changes the policy.
 */
export function apiKeysPageCsp(options: ApiKeysPageOptions = {}): string {
  return pageCsp(pageSettings(options, 'apiKeysPageCsp()'));
}

function pageCsp(settings: PageSettings): string {
  const connect = settings.apiOrigin === undefined ? "'self'" : `'self' ${settings.apiOrigin}`;
  return [
    "default-src 'none'",
    `script-src ${SCRIPT_SOURCE}`,
    `style-src ${STYLE_SOURCE}`,
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The page and its policy from one reading of the options, for a route that serves both (apikeys-ui-routes.ts). */
export function apiKeysPage(options: ApiKeysPageOptions, owner: string): { html: string; csp: string } {
  const settings = pageSettings(options, owner);
  return { html: pageHtml(settings), csp: pageCsp(settings) };
}
