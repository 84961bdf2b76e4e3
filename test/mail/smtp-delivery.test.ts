// The mail module against a real SMTP server on loopback (smtp-server): a password-reset request on a real app
// (auth, mail, Fastify) is delivered with the recipient, the subject and a link whose token resets the
// password; a server that holds the mail does not hold up the HTTP answer; a server that refuses it leaves an
// error line with MAIL_SEND_FAILED and no token.
import { afterEach, describe, expect, it } from 'vitest';
import { adapterPlugin, collectingLogger, createApp, type App, type CollectingLogger } from 'svckit';
import { authModule } from 'svckit/auth';
import { mailModule } from 'svckit/mail';
import { startMailbox, type Mailbox } from './mailbox.js';
import { parseMail } from './mime.js';

const ENV = { NODE_ENV: 'test', SVC_SECRET: 'mail-delivery-test-secret-0123456789abcdef' };
const ACCOUNT = { email: 'pat@example.com', password: 'a long enough password' };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A mailbox closed after the test. */
async function mailboxForTest(accept?: () => Promise<void>): Promise<Mailbox> {
  const mailbox = await startMailbox(accept);
  cleanups.push(() => mailbox.close());
  return mailbox;
}

/** auth + mail (SMTP to `mailbox`) + Fastify, listening on a free port. */
async function startApp(mailbox: Mailbox, logger: CollectingLogger): Promise<{ app: App; url: string }> {
  const app = createApp({ name: 'notes-api', logger });
  const auth = authModule(true, { env: ENV });
  const mail = mailModule(
    { url: mailbox.url, from: 'Notes <no-reply@notes.example>' },
    { serviceName: 'notes-api', sendsMail: true, env: ENV },
  );
  for (const plugin of auth!.plugins) app.register(plugin);
  app.register(mail!.plugin);
  app.register(await adapterPlugin('fastify', { routes: [] }));
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => app.close());
  return { app, url };
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('mail over SMTP', () => {
  it('delivers the password-reset mail with a link whose token resets the password', async () => {
    const mailbox = await mailboxForTest();
    const { url } = await startApp(mailbox, collectingLogger());
    expect((await post(url, '/auth/register', ACCOUNT)).status).toBe(201);
    expect(await post(url, '/auth/password/forgot', { email: ACCOUNT.email })).toEqual({
      status: 200,
      json: { ok: true },
    });

    const delivery = await mailbox.next();
    expect(delivery.from).toBe('no-reply@notes.example');
    expect(delivery.to).toEqual([ACCOUNT.email]);
    const mail = parseMail(delivery.raw);
    expect(mail.headers.get('to')).toBe(ACCOUNT.email);
    expect(mail.headers.get('from')).toBe('Notes <no-reply@notes.example>');
    expect(mail.headers.get('subject')).toBe('Reset your notes-api password');
    const text = mail.parts.get('text/plain') ?? '';
    const token = new RegExp(`${url}/auth/password/reset\\?token=(\\S+)`).exec(text)?.[1];
    expect(token).toBeDefined();
    expect(text).toContain('expires in 1 hour');
    expect(mail.parts.get('text/html')).toContain(
      `<a href="${url}/auth/password/reset?token&#x3D;${token}">`,
    );

    const reset = await post(url, '/auth/password/reset', {
      token: decodeURIComponent(token!),
      password: 'a brand new password',
    });
    expect(reset).toEqual({ status: 200, json: { ok: true } });
    expect((await post(url, '/auth/login', { ...ACCOUNT, password: 'a brand new password' })).status).toBe(
      200,
    );
  });

  it('answers /auth/password/forgot while the server still holds the mail', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const mailbox = await mailboxForTest(() => held);
    const { url } = await startApp(mailbox, collectingLogger());
    await post(url, '/auth/register', ACCOUNT);
    const next = mailbox.next();
    let delivered = false;
    void next.then(() => (delivered = true));

    expect((await post(url, '/auth/password/forgot', { email: ACCOUNT.email })).status).toBe(200);
    expect(delivered).toBe(false);
    release();
    expect((await next).to).toEqual([ACCOUNT.email]);
  });

  it('a refused mail is logged with MAIL_SEND_FAILED, without the token, and the answer is still 200', async () => {
    const mailbox = await mailboxForTest(() => Promise.reject(new Error('mailbox full')));
    const logger = collectingLogger();
    const { app, url } = await startApp(mailbox, logger);
    let token = '';
    app.hooks.on('auth:password_reset_requested', (event) => void (token = event.token));
    await post(url, '/auth/register', ACCOUNT);

    expect((await post(url, '/auth/password/forgot', { email: ACCOUNT.email })).status).toBe(200);
    await app.close(); // waits for the mail in flight
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ code: 'MAIL_SEND_FAILED', kind: 'password-reset' });
    expect(JSON.stringify(errors[0])).toContain('mailbox full');
    expect(token).not.toBe('');
    expect(JSON.stringify(logger.entries)).not.toContain(token);
  });
});
