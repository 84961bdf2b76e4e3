// The whole passkey ceremony in a real browser against the reference service: on its demo page
// (/auth/passkeys/demo, under its own strict CSP) a person creates an account, adds a passkey (Chromium's
// virtual authenticator stands in for the device), signs out and signs in with it; the session's amr shows the
// passkey and the verified user. Then the authenticator's counter is rolled back, as a cloned key would report
// it, and the sign-in is refused with 401 PASSKEY_CLONED. Nothing on the page may log an error or break its
// CSP. A screenshot of the signed-in page is written to test-results/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../generated/config.js';
import type { App } from '../../runtime/app/app.js';
import { PASSKEY_DEMO_IDS } from '../../runtime/auth/http/passkey-demo-page.js';
import { buildApp } from '../../src/app.js';
import { freePort } from '../backends.js';
import {
  launchChromium,
  NO_PROBLEMS,
  screenshotDir,
  virtualAuthenticator,
  waitForText,
  watchPage,
  type PageWatch,
  type VirtualAuthenticator,
} from './chromium.js';

const id = (name: keyof typeof PASSKEY_DEMO_IDS) => `#${PASSKEY_DEMO_IDS[name]}`;

let app: App;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  // localhost, not 127.0.0.1: the browser's secure context, and the rpId the service is configured with.
  origin = `http://localhost:${port}`;
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    SVC_SECRET: 'browser-passkeys-secret-0123456789abcdef',
    DATABASE_URL: 'memory',
    REDIS_URL: '',
    RATE_LIMIT: '100000',
    // The reference service's passkey origin is http://localhost:<PORT>.
    PORT: String(port),
  });
  app = await buildApp(config);
  await app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Clicks `button` and waits until the page's message reads `text`. */
async function step(page: Page, button: keyof typeof PASSKEY_DEMO_IDS, text: string): Promise<void> {
  await page.click(id(button));
  await waitForText(page, id('message'), text);
}

describe('passkeys in Chromium on the demo page', () => {
  let page: Page;
  let watch: PageWatch;
  let authenticator: VirtualAuthenticator;

  it('registers a passkey, signs out, signs in with it, and the session says how', async () => {
    page = await browser.newPage();
    watch = await watchPage(page);
    authenticator = await virtualAuthenticator(page);
    const answer = await page.goto(`${origin}/auth/passkeys/demo`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toMatch(/script-src 'sha256-/);
    await waitForText(page, id('message'), 'Ready');

    await page.fill(id('email'), 'ada@example.com');
    await page.fill(id('password'), 'a long enough password');
    await step(page, 'register', 'Account created');
    await expect(page.textContent(id('statusUser'))).resolves.toContain('ada@example.com');
    await expect(page.textContent(id('statusAmr'))).resolves.toBe('pwd');

    await page.fill(id('passkeyLabel'), 'Test laptop');
    await step(page, 'addPasskey', 'Passkey added: Test laptop');
    expect(await authenticator.credentials()).toHaveLength(1);

    await step(page, 'signOut', 'Signed out');
    await step(page, 'passkeySignIn', 'Signed in with a passkey');
    await expect(page.textContent(id('statusUser'))).resolves.toContain('ada@example.com');
    // A passkey (proof of possession of a key) whose authenticator verified the user: multi-factor.
    await expect(page.textContent(id('statusAmr'))).resolves.toBe('hwk mfa');
    await page.screenshot({ path: join(screenshotDir(), 'passkey-demo-signed-in.png'), fullPage: true });

    const problems = await watch.settled();
    // Signed out, the page's own GET /auth/me answers 401 (and Chromium asks for a favicon): nothing else.
    expect({ ...problems, failedLoads: [] }).toEqual(NO_PROBLEMS);
    for (const load of problems.failedLoads) expect(load).toMatch(/\/auth\/me|favicon\.ico/);
  });

  it('refuses the passkey with 401 PASSKEY_CLONED once its counter goes back', async () => {
    await step(page, 'signOut', 'Signed out');
    const [credential] = await authenticator.credentials();
    expect(credential!.signCount).toBeGreaterThan(0);
    // A clone of the key answers with a counter the service has already seen.
    await authenticator.rollBackCounter(credential!.credentialId, 0);
    const verify = page.waitForResponse((response) => response.url().endsWith('/auth/passkeys/login/verify'));
    await page.click(id('passkeySignIn'));
    const refused = await verify;
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PASSKEY_CLONED');
    await waitForText(page, id('message'), 'PASSKEY_CLONED: Passkey counter did not increase.');
    await expect(page.textContent(id('statusUser'))).resolves.not.toContain('ada@example.com');

    const problems = await watch.settled();
    expect({ ...problems, failedLoads: [] }).toEqual(NO_PROBLEMS);
    for (const load of problems.failedLoads) expect(load).toMatch(/\/auth\/me|favicon\.ico|login\/verify/);
  });
});
