// A one-page demo of the auth routes with passkeys, for trying them in a browser and for browser tests to drive:
// create an account or sign in with a password, add a passkey, sign out, sign in with the passkey, and see who
// is signed in and how (GET /auth/me's amr). It talks to the routes with fetch() and the session cookie only.
// The page runs under a strict Content-Security-Policy: its one script and one style are allowed by their
// SHA-256 hashes, so nothing injected into it could run, and it has no inline handlers or style attributes,
// which a hash cannot allow. The page script converts between the routes' base64url JSON and the ArrayBuffers
// navigator.credentials takes by hand: the page loads no library.
import { createHash } from 'node:crypto';

/** Stable ids a browser test drives the page by. */
export const PASSKEY_DEMO_IDS = Object.freeze({
  accountForm: 'account-form',
  email: 'email',
  password: 'password',
  passwordSignIn: 'password-sign-in-button',
  register: 'register-button',
  passkeyLabel: 'passkey-label',
  addPasskey: 'add-passkey-button',
  passkeySignIn: 'passkey-sign-in-button',
  signOut: 'sign-out-button',
  statusUser: 'status-user',
  statusAmr: 'status-amr',
  message: 'message',
} as const);

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 36rem; padding: 0 1rem; }
form, section { border: 1px solid #ccc; border-radius: 6px; margin: 1rem 0; padding: 1rem; }
label { display: block; margin-bottom: 0.5rem; }
input { box-sizing: border-box; display: block; width: 100%; }
button { margin: 0.25rem 0.5rem 0.25rem 0; }
#message[data-kind='error'] { color: #b00020; }
`;

// Plain browser JavaScript, kept free of template literals and of `</`: it is embedded in the HTML as is, and
// its exact text is what the CSP hash covers. Every answer of the routes is JSON (or empty for 204); errors
// carry `{ error: { code, message } }`. A ceremony's options answer sets the HttpOnly svc_passkey cookie that
// its verify call sends back: fetch() sends the page's cookies on same-origin requests by default.
const SCRIPT = String.raw`
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const message = byId('message');

  // base64url (RFC 4648 §5, unpadded) to bytes: atob() takes standard base64 with or without padding.
  const toBytes = (text) => {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const toBase64url = (buffer) => {
    const bytes = new Uint8Array(buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };

  const descriptor = (entry) => ({ type: entry.type, id: toBytes(entry.id), transports: entry.transports });
  const creationOptions = (json) => ({
    ...json,
    challenge: toBytes(json.challenge),
    user: { ...json.user, id: toBytes(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map(descriptor),
  });
  const requestOptions = (json) => ({
    ...json,
    challenge: toBytes(json.challenge),
    allowCredentials: (json.allowCredentials || []).map(descriptor),
  });

  // What PublicKeyCredential.toJSON() answers, written out for browsers without it.
  const credentialJson = (credential, response) => {
    const json = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      response,
      clientExtensionResults: credential.getClientExtensionResults(),
    };
    if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
    return json;
  };
  const registrationJson = (credential) => {
    const r = credential.response;
    const response = {
      clientDataJSON: toBase64url(r.clientDataJSON),
      attestationObject: toBase64url(r.attestationObject),
      transports: typeof r.getTransports === 'function' ? r.getTransports() : [],
    };
    if (typeof r.getAuthenticatorData === 'function') {
      response.authenticatorData = toBase64url(r.getAuthenticatorData());
    }
    if (typeof r.getPublicKeyAlgorithm === 'function') response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    const publicKey = typeof r.getPublicKey === 'function' ? r.getPublicKey() : null;
    if (publicKey) response.publicKey = toBase64url(publicKey);
    return credentialJson(credential, response);
  };
  const authenticationJson = (credential) => {
    const r = credential.response;
    const response = {
      clientDataJSON: toBase64url(r.clientDataJSON),
      authenticatorData: toBase64url(r.authenticatorData),
      signature: toBase64url(r.signature),
    };
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
    return credentialJson(credential, response);
  };

  const call = async (method, path, body) => {
    const init = { method, headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    const data = text === '' ? undefined : JSON.parse(text);
    if (!response.ok) {
      const error = data && data.error;
      throw new Error(error ? error.code + ': ' + error.message : 'HTTP ' + response.status);
    }
    return data;
  };

  const show = (kind, text) => {
    message.dataset.kind = kind;
    message.textContent = text;
  };

  // Who is signed in, as the session cookie says; the buttons that need a signed-in user follow it.
  const refreshStatus = async () => {
    let me;
    try {
      me = await call('GET', '/auth/me');
    } catch {
      me = undefined;
    }
    byId('status-user').textContent = me ? me.user.email : 'nobody';
    byId('status-amr').textContent = me ? me.amr.join(' ') : '';
    byId('add-passkey-button').disabled = !me;
    byId('sign-out-button').disabled = !me;
  };

  // Runs one action: its buttons wait, the status is read again, then the outcome is shown (last, so that a
  // test waiting for the message finds the status up to date).
  const run = (action) => async (event) => {
    if (event) event.preventDefault();
    document.body.dataset.busy = 'true';
    show('pending', 'Working...');
    let outcome;
    try {
      outcome = ['ok', await action(event)];
    } catch (error) {
      outcome = ['error', error instanceof Error ? error.message : String(error)];
    }
    await refreshStatus();
    show(outcome[0], outcome[1]);
    delete document.body.dataset.busy;
  };

  const credentials = () => ({ email: byId('email').value, password: byId('password').value });

  // The form never submits (the CSP's form-action 'none'): its two buttons are handled here.
  byId('account-form').addEventListener(
    'submit',
    run(async (event) => {
      if (event.submitter && event.submitter.id === 'register-button') {
        await call('POST', '/auth/register', credentials());
        return 'Account created';
      }
      await call('POST', '/auth/login', credentials());
      return 'Signed in with password';
    }),
  );

  byId('add-passkey-button').addEventListener(
    'click',
    run(async () => {
      const options = await call('POST', '/auth/passkeys/register/options');
      const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
      const label = byId('passkey-label').value.trim();
      const body = { response: registrationJson(credential) };
      if (label !== '') body.label = label;
      const passkey = await call('POST', '/auth/passkeys/register/verify', body);
      return 'Passkey added: ' + passkey.label;
    }),
  );

  byId('passkey-sign-in-button').addEventListener(
    'click',
    run(async () => {
      const options = await call('POST', '/auth/passkeys/login/options', {});
      const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
      await call('POST', '/auth/passkeys/login/verify', { response: authenticationJson(credential) });
      return 'Signed in with a passkey';
    }),
  );

  byId('sign-out-button').addEventListener(
    'click',
    run(async () => {
      await call('POST', '/auth/logout');
      return 'Signed out';
    }),
  );

  run(async () => 'Ready')();
})();
`;

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page's Content-Security-Policy: its script and style by hash, requests to its own origin only, no form
 * submission, no framing. Send it instead of the security plugin's default (`default-src 'none'`), which would
 * stop the script.
 */
export const PASSKEY_DEMO_CSP = [
  "default-src 'none'",
  `script-src ${sha256Source(SCRIPT)}`,
  `style-src ${sha256Source(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Passkeys demo</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Passkeys demo</h1>
<section aria-label="Status">
<p>Signed in as: <output id="status-user">nobody</output></p>
<p>Signed in with (amr): <output id="status-amr"></output></p>
<p id="message" role="status" aria-live="polite"></p>
</section>
<form id="account-form">
<label>Email <input id="email" name="email" type="email" autocomplete="username webauthn" required></label>
<label>Password <input id="password" name="password" type="password" autocomplete="current-password" required></label>
<button id="password-sign-in-button" type="submit">Sign in with password</button>
<button id="register-button" type="submit">Create account</button>
</form>
<section aria-label="Passkeys">
<label>Passkey name (optional) <input id="passkey-label" name="label" maxlength="64"></label>
<button id="add-passkey-button" type="button" disabled>Add a passkey</button>
<button id="passkey-sign-in-button" type="button">Sign in with a passkey</button>
<button id="sign-out-button" type="button" disabled>Sign out</button>
</section>
<script>${SCRIPT}</script>
</body>
</html>
`;

/**
 * The page's HTML. Serve it with `content-type: text/html; charset=utf-8` and `content-security-policy:
 * PASSKEY_DEMO_CSP`, on the origin the auth routes are on.
 */
export function passkeyDemoPage(): string {
  return HTML;
}
