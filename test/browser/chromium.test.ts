// The browser harness itself: the system Chromium starts, a virtual authenticator answers a real
// navigator.credentials.create() and get() and shows what it holds, a counter can be rolled back, and watchPage()
// reports a CSP violation (and nothing on a clean page).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  base64urlOf,
  launchChromium,
  NO_PROBLEMS,
  virtualAuthenticator,
  waitForText,
  watchPage,
} from './chromium.js';

const CHALLENGE = Buffer.from('a fixed challenge of 32 bytes!!!').toString('base64url');
const USER_HANDLE = Buffer.from('user-1').toString('base64url');

const PAGES: Record<string, { csp?: string; body: string }> = {
  '/': { body: '<!doctype html><title>blank</title>' },
  '/strict': {
    csp: "default-src 'none'",
    body: '<!doctype html><title>strict</title><p id="greeting">Hello (1)</p>',
  },
  '/refused-script': {
    csp: "default-src 'none'; script-src 'none'",
    body: "<!doctype html><title>refused</title><script>document.title = 'ran'</script>",
  },
};

let server: Server;
let origin: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = createServer((request, response) => {
    // Chromium asks for a favicon by itself, sometimes after a test has looked: answer it, so no 404 shows.
    if (request.url === '/favicon.ico') return void response.writeHead(204).end();
    const served = PAGES[request.url ?? ''];
    if (served === undefined) return void response.writeHead(404).end();
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (served.csp !== undefined) headers['content-security-policy'] = served.csp;
    response.writeHead(200, headers).end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: both are secure contexts, but only a domain can be a WebAuthn rpId.
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterEach(async () => {
  await page?.close();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Runs a WebAuthn call in the page on options whose binary fields are base64url, answering the JSON form. */
function ceremony(kind: 'create' | 'get', options: object): string {
  return `(async () => {
    const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const options = ${JSON.stringify(options)};
    options.challenge = bytes(options.challenge);
    if (options.user) options.user.id = bytes(options.user.id);
    const credential = await navigator.credentials.${kind}({ publicKey: options });
    return credential.toJSON();
  })()`;
}

interface CredentialJson {
  id: string;
  response: { clientDataJSON: string; authenticatorData: string };
}

function clientData(credential: CredentialJson): { type: string; challenge: string; origin: string } {
  return JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString('utf8'));
}

/** The signature counter in authenticator data: 4 bytes big-endian after the rpId hash and the flags. */
function signCountOf(credential: CredentialJson): number {
  return Buffer.from(credential.response.authenticatorData, 'base64url').readUInt32BE(33);
}

describe('the system Chromium with a virtual authenticator', () => {
  it('creates a passkey on localhost and shows it over the DevTools protocol', async () => {
    page = await browser.newPage();
    await page.goto(`${origin}/`);
    const authenticator = await virtualAuthenticator(page);
    expect(await authenticator.credentials()).toEqual([]);

    const created = (await page.evaluate(
      ceremony('create', {
        challenge: CHALLENGE,
        rp: { id: 'localhost', name: 'svckit test' },
        user: { id: USER_HANDLE, name: 'ada@example.com', displayName: 'Ada' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      }),
    )) as CredentialJson;

    expect(clientData(created)).toMatchObject({ type: 'webauthn.create', challenge: CHALLENGE, origin });
    const held = await authenticator.credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    expect(base64urlOf(held[0]!.credentialId)).toBe(created.id);
    expect(base64urlOf(held[0]!.userHandle ?? '')).toBe(USER_HANDLE);
  });

  it('rolls a counter back, which the next assertion reports', async () => {
    page = await browser.newPage();
    await page.goto(`${origin}/`);
    const authenticator = await virtualAuthenticator(page);
    const created = (await page.evaluate(
      ceremony('create', {
        challenge: CHALLENGE,
        rp: { id: 'localhost', name: 'svckit test' },
        user: { id: USER_HANDLE, name: 'ada@example.com', displayName: 'Ada' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      }),
    )) as CredentialJson;
    const signIn = ceremony('get', { challenge: CHALLENGE, rpId: 'localhost', userVerification: 'required' });

    const first = (await page.evaluate(signIn)) as CredentialJson;
    const second = (await page.evaluate(signIn)) as CredentialJson;
    expect(first.id).toBe(created.id);
    expect(signCountOf(second)).toBeGreaterThan(signCountOf(first));

    const [held] = await authenticator.credentials();
    const before = await authenticator.rollBackCounter(held!.credentialId, 0);
    expect(before.signCount).toBe(signCountOf(second));
    expect((await authenticator.credentials())[0]).toMatchObject({
      credentialId: held!.credentialId,
      signCount: 0,
    });

    const afterRollback = (await page.evaluate(signIn)) as CredentialJson;
    expect(afterRollback.id).toBe(created.id);
    expect(signCountOf(afterRollback)).toBeLessThan(signCountOf(second));
  });
});

describe('watchPage', () => {
  it('reports an inline script the page CSP refuses', async () => {
    page = await browser.newPage();
    const watch = await watchPage(page);
    await page.goto(`${origin}/refused-script`);

    const problems = await watch.settled();
    expect(await page.title()).toBe('refused');
    expect(problems.cspViolations).toEqual([
      expect.objectContaining({ directive: 'script-src-elem', blockedUri: 'inline' }),
    ]);
    expect(problems.consoleErrors).toEqual([expect.stringContaining('Content Security Policy')]);
  });

  it('reports nothing for a page that does nothing wrong', async () => {
    page = await browser.newPage();
    const watch = await watchPage(page);
    await page.goto(`${origin}/`);
    expect(await watch.settled()).toEqual(NO_PROBLEMS);
  });

  it('lets waitForText read a page whose CSP forbids eval, without a violation', async () => {
    page = await browser.newPage();
    const watch = await watchPage(page);
    await page.goto(`${origin}/strict`);
    await waitForText(page, '#greeting', 'Hello (1)');
    await expect(waitForText(page, '#greeting', 'Hello', 200)).rejects.toThrow(/Timeout/);
    expect(await watch.settled()).toEqual(NO_PROBLEMS);
  });

  it('reports an uncaught exception, a console error and a failed request, each apart', async () => {
    page = await browser.newPage();
    const watch = await watchPage(page);
    await page.goto(`${origin}/`);
    await page.evaluate(
      "fetch('/missing').then(() => { console.error('logged'); setTimeout(() => { throw new Error('thrown') }) })",
    );

    await expect.poll(() => watch.problems.pageErrors).toEqual(['thrown']);
    const problems = await watch.settled();
    expect(problems.consoleErrors).toEqual(['logged']);
    expect(problems.failedLoads).toEqual([expect.stringMatching(new RegExp(`^${origin}/missing: .*404`))]);
    expect(problems.cspViolations).toEqual([]);
  });
});
