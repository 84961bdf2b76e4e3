// A real browser for tests: the system Chromium (Debian's `chromium` package, which .ci/run installs) driven by
// playwright-core, which downloads no browser of its own. On top of it, a virtual WebAuthn authenticator over
// the DevTools protocol, so a test runs real passkey ceremonies without a person or a security key, and a
// watcher that collects what a page got wrong (console errors, uncaught exceptions, CSP violations) for a test
// to assert that nothing did.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Starts a headless Chromium. playwright-core adds `--headless` itself for `headless: true`, and `--no-sandbox`
 * unless `chromiumSandbox` is true: the sandbox needs user namespaces that containers rarely allow.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\``);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-gpu', '--disable-background-networking'],
  });
}

/** Where tests put screenshots: `test-results/` at the repository root, which git ignores. */
export function screenshotDir(): string {
  const dir = fileURLToPath(new URL('../../test-results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A credential as the virtual authenticator holds it (the DevTools protocol's `WebAuthn.Credential`). Binary
 * fields are standard base64 with padding, not the base64url of WebAuthn's JSON: see `base64urlOf`.
 */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** The ECDSA P-256 private key, PKCS#8. */
  privateKey: string;
  userHandle?: string;
  /** The signature counter; the next assertion reports one more. */
  signCount: number;
  userName?: string;
  userDisplayName?: string;
}

export interface VirtualAuthenticator {
  readonly authenticatorId: string;
  /** The credentials it holds, in the order they were created. */
  credentials(): Promise<VirtualCredential[]>;
  addCredential(credential: VirtualCredential): Promise<void>;
  removeCredential(credentialId: string): Promise<void>;
  /**
   * Puts `credentialId` back with a lower signature counter, as a cloned authenticator would report it: the
   * relying party must then refuse its next assertion. Answers the credential as it was before.
   */
  rollBackCounter(credentialId: string, signCount: number): Promise<VirtualCredential>;
  /** Whether the next ceremonies report the user as verified (PIN, biometrics) or only present. */
  setUserVerified(isUserVerified: boolean): Promise<void>;
  /** Removes the authenticator; the page's ceremonies then find none. */
  remove(): Promise<void>;
}

/**
 * Adds a platform authenticator to `page` that holds discoverable credentials (passkeys), verifies the user and
 * answers without a touch. The page must be a secure context whose host can be an rpId: `http://localhost:<port>`
 * works, `http://127.0.0.1:<port>` does not (an IP address is not a valid rpId).
 */
export async function virtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const session: CDPSession = await page.context().newCDPSession(page);
  await session.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  const credentials = async (): Promise<VirtualCredential[]> =>
    (await session.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  const addCredential = async (credential: VirtualCredential): Promise<void> => {
    await session.send('WebAuthn.addCredential', { authenticatorId, credential });
  };
  const removeCredential = async (credentialId: string): Promise<void> => {
    await session.send('WebAuthn.removeCredential', { authenticatorId, credentialId });
  };

  return {
    authenticatorId,
    credentials,
    addCredential,
    removeCredential,
    async rollBackCounter(credentialId, signCount) {
      const current = (await credentials()).find((credential) => credential.credentialId === credentialId);
      if (current === undefined)
        throw new Error(`The virtual authenticator holds no credential ${credentialId}`);
      if (signCount >= current.signCount) {
        throw new Error(`A rollback needs a counter below ${current.signCount}, not ${signCount}`);
      }
      await removeCredential(credentialId);
      await addCredential({ ...current, signCount });
      return current;
    },
    async setUserVerified(isUserVerified) {
      await session.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    },
    async remove() {
      await session.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      await session.detach();
    },
  };
}

/**
 * Waits until the element `selector` finds reads exactly `text`. Prefer it to `page.waitForFunction('…')` on a
 * page with a CSP: Playwright compiles a string predicate with eval() in the page, which a CSP without
 * 'unsafe-eval' refuses (a violation watchPage reports); selectors run where the page's CSP does not apply.
 */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  timeout = 10_000,
): Promise<void> {
  const exactly = new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await page.locator(selector, { hasText: exactly }).waitFor({ timeout });
}

/** A credential id (or any binary field) of the DevTools protocol, base64, as WebAuthn's JSON writes it. */
export function base64urlOf(base64: string): string {
  return Buffer.from(base64, 'base64').toString('base64url');
}

export interface CspViolation {
  /** The directive that refused, e.g. `script-src-elem`. */
  directive: string;
  /** `inline`, `eval` or the URL that was refused. */
  blockedUri: string;
  /** The start of the refused inline code, when the policy says `'report-sample'`. */
  sample: string;
}

export interface PageProblems {
  /** Console errors other than failed loads. */
  consoleErrors: string[];
  /**
   * Requests answered with an error status or not answered, as `<url>: <console text>`. Chromium logs each
   * as a console error; they are apart because some are expected (GET /auth/me while signed out is a 401, and
   * Chromium asks for /favicon.ico), so a test can filter them and still insist on no other console error.
   */
  failedLoads: string[];
  pageErrors: string[];
  cspViolations: CspViolation[];
}

export interface PageWatch {
  /** What happened so far (a live view: later problems are added to the same arrays). */
  readonly problems: PageProblems;
  /**
   * What happened once the page had a moment to report: a violation event and its report to the test arrive
   * a task or two after the code that caused it. Then `expect(await watch.settled()).toEqual(NO_PROBLEMS)`.
   */
  settled(): Promise<PageProblems>;
}

export const NO_PROBLEMS: PageProblems = Object.freeze({
  consoleErrors: [],
  failedLoads: [],
  pageErrors: [],
  cspViolations: [],
});

const FAILED_LOAD = 'Failed to load resource';

const CSP_BINDING = '__svcReportCspViolation';

/**
 * The page-side listener, as source text: a function from the test file would be transformed by vitest and
 * could refer to helpers the page does not have. Init scripts run before the page's own, and are not subject
 * to its CSP.
 */
const CSP_LISTENER = `document.addEventListener('securitypolicyviolation', (event) => {
  window.${CSP_BINDING}({ directive: event.effectiveDirective, blockedUri: event.blockedURI, sample: event.sample });
}, true);`;

/** Starts collecting `page`'s problems. Call it before the page loads what it should check. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const problems: PageProblems = { consoleErrors: [], failedLoads: [], pageErrors: [], cspViolations: [] };
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (text.startsWith(FAILED_LOAD)) problems.failedLoads.push(`${message.location().url}: ${text}`);
    else problems.consoleErrors.push(text);
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  await page.exposeFunction(CSP_BINDING, (violation: CspViolation) => {
    problems.cspViolations.push(violation);
  });
  await page.addInitScript({ content: CSP_LISTENER });
  return {
    problems,
    async settled() {
      if (!page.isClosed()) await page.evaluate('new Promise((resolve) => setTimeout(resolve, 50))');
      return problems;
    },
  };
}
