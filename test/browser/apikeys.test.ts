// The API-key page in a real browser, under its own strict CSP, against an app with auth and API keys on a
// real adapter: a person signs in on the page (it updates itself, no reload), creates a key with a scope and an
// expiry date, sees the secret once, copies it (the clipboard holds it), finds it listed as start…last4, and
// the key opens a scoped route until it is revoked on the page. Then the page at phone width: no horizontal
// scroll, and the create form filled and submitted with the keyboard alone. Nothing on the page may log an
// error or break its CSP. A screenshot of the page with one key listed is written to test-results/.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryUserSource, route, type Plugin } from 'svckit';
import { ApiKeys } from '../../runtime/auth/apikeys/index.js';
import { Auth } from '../../runtime/auth/auth.js';
import { apiKeyPlugin } from '../../runtime/auth/http/apikey-plugin.js';
import { API_KEYS_PAGE_IDS, API_KEYS_ROW_CLASSES } from '../../runtime/auth/http/apikeys-page.js';
import { apiKeysUiRoutes } from '../../runtime/auth/http/apikeys-ui-routes.js';
import { authPlugin } from '../../runtime/auth/http/plugin.js';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { adapters, type RunningServer } from '../http/harness.js';
import {
  launchChromium,
  NO_PROBLEMS,
  screenshotDir,
  waitForText,
  watchPage,
  type PageWatch,
} from './chromium.js';

const id = (name: keyof typeof API_KEYS_PAGE_IDS) => `#${API_KEYS_PAGE_IDS[name]}`;
const rowPart = (name: keyof typeof API_KEYS_ROW_CLASSES) => `#key-list .${API_KEYS_ROW_CLASSES[name]}`;

const SCOPES = ['notes:read', 'notes:write'];
const EMAIL = 'ada@example.com';
const PASSWORD = 'a long enough password';
const MFA_EMAIL = 'grace@example.com';
// India has no daylight saving time: the end of a day there is 18:29:59.999 UTC, every day of the year.
const TIME_ZONE = 'Asia/Kolkata';
const KOLKATA_OFFSET_MS = (5 * 60 + 30) * 60_000;

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
/** A recovery code of the MFA account. */
let recoveryCode: string;

beforeAll(async () => {
  const users = new MemoryUserSource();
  const mfa = new MfaService({
    store: new MemoryMfaStore(),
    box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
    issuer: 'Notes API',
    users,
  });
  const auth = new Auth({
    secret: 'browser-apikeys-secret-0123456789abcdef',
    passwordHash: { ln: 4, r: 8, p: 1 },
    users,
    mfa,
    apiKeys: new ApiKeys({ scopes: SCOPES }),
  });
  const page: Plugin = {
    name: 'test:apikeys-page',
    setup(app) {
      app.metadata.add('http:routes', ...apiKeysUiRoutes({ scopes: SCOPES }));
    },
  };
  const notes = route({
    method: 'GET',
    url: '/notes',
    meta: { auth: true, scopes: ['notes:read'] },
    handler: () => ({ notes: ['first'] }),
  });
  [server, browser] = await Promise.all([
    adapters[0]!.start({
      routes: [notes],
      plugins: [authPlugin({ auth, nodeEnv: 'test' }), apiKeyPlugin({ auth }), page],
    }),
    launchChromium(),
  ]);
  const registered = await fetch(`${server.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  expect(registered.status).toBe(201);
  // A second account with two-factor sign-in on.
  const { user: grace } = await auth.register(MFA_EMAIL, PASSWORD);
  const { secret } = await auth.enrollMfa(grace.id);
  const code = new TOTP({
    secret: Secret.fromBase32(secret),
    digits: 6,
    period: 30,
    algorithm: 'SHA1',
  }).generate();
  recoveryCode = (await auth.activateMfa(grace.id, code)).recoveryCodes[0]!;
  // One context for both tests: the clipboard granted, a fixed zone and locale, the session cookie shared.
  context = await browser.newContext({ timezoneId: TIME_ZONE, locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function notesWith(key: string): Promise<Response> {
  return fetch(`${server.url}/notes`, { headers: { 'x-api-key': key } });
}

/** What went wrong on the page, apart from the expected 401 of GET /apikeys while signed out and the favicon. */
async function expectNoProblems(watch: PageWatch): Promise<void> {
  const problems = await watch.settled();
  expect({ ...problems, failedLoads: [] }).toEqual(NO_PROBLEMS);
  for (const load of problems.failedLoads) expect(load).toMatch(/\/apikeys\b|favicon\.ico/);
}

const activeId = (page: Page) =>
  page.evaluate<string>("document.activeElement ? document.activeElement.id : ''");

describe('the API-key page in Chromium', () => {
  it('signs in, creates a key shown once, copies it, lists it, and revokes it', async () => {
    const page = await context.newPage();
    const watch = await watchPage(page);
    const answer = await page.goto(`${server.url}/apikeys/ui`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toMatch(/script-src 'sha256-/);
    // 127.0.0.1 is potentially trustworthy, like localhost: the clipboard API is there.
    expect(await page.evaluate<boolean>('window.isSecureContext')).toBe(true);

    await page.locator(id('signInForm')).waitFor();
    expect(await page.isVisible(id('keysSection'))).toBe(false);
    await page.fill(id('email'), EMAIL);
    await page.fill(id('password'), PASSWORD);
    await page.click(id('signIn'));
    await waitForText(page, id('message'), 'Signed in.');
    expect(await page.isVisible(id('signInForm'))).toBe(false);
    await expect(page.textContent(id('noKeys'))).resolves.toBe('No keys yet.');
    // The session cookie is HttpOnly and the login answer's tokens were dropped: nothing readable is kept.
    expect(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([
      0,
      0,
      '',
    ]);

    const year = new Date().getUTCFullYear() + 2;
    await page.fill(id('name'), 'CI deploys');
    await page.getByLabel('notes:read').check();
    await page.fill(id('expires'), `${year}-01-15`);
    const created = page.waitForResponse(
      (response) => response.url().endsWith('/apikeys') && response.request().method() === 'POST',
    );
    await page.click(id('create'));
    const createdAnswer = await created;
    expect(createdAnswer.status()).toBe(201);
    const { key, record } = (await createdAnswer.json()) as {
      key: string;
      record: { start: string; last4: string; scopes: string[]; expiresAt: number };
    };
    await waitForText(page, id('message'), 'Key created. Copy it now: it will not be shown again.');
    // The end of the chosen day in the browser's time zone.
    expect(record.expiresAt).toBe(Date.UTC(year, 0, 15, 23, 59, 59, 999) - KOLKATA_OFFSET_MS);
    expect(record.scopes).toEqual(['notes:read']);

    const secret = await page.inputValue(id('secret'));
    expect(secret).toBe(key);
    expect(secret).toMatch(/^mk_live_/);
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.secret);
    await page.click(id('copy'));
    await waitForText(page, id('message'), 'Key copied.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);

    await expect(page.textContent(rowPart('name'))).resolves.toBe('CI deploys');
    await expect(page.textContent(rowPart('preview'))).resolves.toBe(`${record.start}…${record.last4}`);
    expect(secret.startsWith(record.start) && secret.endsWith(record.last4)).toBe(true);
    await expect(page.textContent(rowPart('scopes'))).resolves.toBe('notes:read');
    await expect(page.textContent(rowPart('expires'))).resolves.toBe(`${year}-01-15 23:59`);
    await expect(page.textContent(rowPart('lastUsed'))).resolves.toBe('never');
    expect(await page.isVisible(id('noKeys'))).toBe(false);

    const allowed = await notesWith(secret);
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ notes: ['first'] });

    await page.click(id('done'));
    expect(await page.isVisible(id('secretPanel'))).toBe(false);
    expect(await page.inputValue(id('secret'))).toBe('');
    expect(await page.content()).not.toContain(secret);
    await page.screenshot({ path: join(screenshotDir(), 'apikeys-page-one-key.png'), fullPage: true });

    await page.click(rowPart('revoke'));
    await waitForText(page, id('message'), 'Key revoked: CI deploys.');
    await expect(page.locator(`#key-list .${API_KEYS_ROW_CLASSES.row}`).count()).resolves.toBe(0);
    expect(await page.isVisible(id('noKeys'))).toBe(true);
    const refused = await notesWith(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('AUTH_TOKEN_INVALID');

    await expectNoProblems(watch);
    await page.close();
  });

  it('fits a phone screen and is used with the keyboard alone', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    const watch = await watchPage(page);
    const scrollWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');
    await page.goto(`${server.url}/apikeys/ui`);
    // Signed in by the first test (the context keeps its session cookie).
    await page.locator(id('createForm')).waitFor();
    expect(await scrollWidth()).toBeLessThanOrEqual(360);

    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.signOut);
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.name);
    await page.keyboard.type('A phone key with a rather long name that must wrap, not scroll');
    // Enter submits; with no scope picked the page says so and puts focus on the first scope.
    await page.keyboard.press('Enter');
    await waitForText(page, id('message'), 'Pick at least one scope.');
    expect(await page.getAttribute(id('message'), 'data-kind')).toBe('error');
    expect(await activeId(page)).toBe('scope-0');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    // On to the create button, past the date field (however many stops its parts take).
    for (let stop = 0; stop < 6 && (await activeId(page)) !== API_KEYS_PAGE_IDS.create; stop++) {
      await page.keyboard.press('Tab');
    }
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.create);
    await page.keyboard.press('Enter');
    await waitForText(page, id('message'), 'Key created. Copy it now: it will not be shown again.');
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.secret);
    const secret = await page.inputValue(id('secret'));
    expect((await notesWith(secret)).status).toBe(200);
    await expect(page.textContent(rowPart('scopes'))).resolves.toBe('notes:read notes:write');
    await expect(page.textContent(rowPart('expires'))).resolves.toBe('never');
    // The secret, the list and its long name all fit.
    expect(await scrollWidth()).toBeLessThanOrEqual(360);

    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.copy);
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.done);
    await page.keyboard.press('Enter');
    expect(await page.isVisible(id('secretPanel'))).toBe(false);
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.name);

    // Signing out shows the sign-in form in place; it fits too.
    await page.focus(id('signOut'));
    await page.keyboard.press('Enter');
    await waitForText(page, id('message'), 'Signed out.');
    expect(await page.isVisible(id('signInForm'))).toBe(true);
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.email);
    expect(await scrollWidth()).toBeLessThanOrEqual(360);
    // The session is over on the server, not only hidden: the context's cookies no longer list keys.
    expect((await context.request.get(`${server.url}/apikeys`)).status()).toBe(401);

    await expectNoProblems(watch);
    await page.close();
  });

  it('asks for the second factor when the account has one, then signs in with it', async () => {
    const page = await context.newPage();
    const watch = await watchPage(page);
    // Signed out by the second test.
    await page.goto(`${server.url}/apikeys/ui`);
    await page.locator(id('signInForm')).waitFor();
    expect(await page.isVisible(id('mfaField'))).toBe(false);
    await page.fill(id('email'), MFA_EMAIL);
    await page.fill(id('password'), PASSWORD);
    const login = page.waitForResponse((response) => response.url().endsWith('/auth/login'));
    await page.click(id('signIn'));
    const refused = await login;
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('AUTH_MFA_REQUIRED');
    await waitForText(
      page,
      id('message'),
      'Enter the code from your authenticator app (or a recovery code).',
    );
    expect(await activeId(page)).toBe(API_KEYS_PAGE_IDS.mfaCode);

    await page.keyboard.type(recoveryCode);
    await page.keyboard.press('Enter');
    await waitForText(page, id('message'), 'Signed in.');
    // Grace's own keys: none (Ada's, created by the earlier tests, are not hers).
    expect(await page.isVisible(id('noKeys'))).toBe(true);
    expect(await page.isVisible(id('mfaField'))).toBe(false);

    // A wrong password is said as the API says it, and keeps the form.
    await page.click(id('signOut'));
    await waitForText(page, id('message'), 'Signed out.');
    await page.fill(id('email'), EMAIL);
    await page.fill(id('password'), 'not the password at all');
    await page.click(id('signIn'));
    await page
      .locator(`${id('message')}[data-kind="error"]`, { hasText: 'AUTH_INVALID_CREDENTIALS' })
      .waitFor();
    expect(await page.isVisible(id('signInForm'))).toBe(true);

    const problems = await watch.settled();
    expect({ ...problems, failedLoads: [] }).toEqual(NO_PROBLEMS);
    for (const load of problems.failedLoads) expect(load).toMatch(/\/apikeys\b|\/auth\/login|favicon\.ico/);
    await page.close();
  });
});
