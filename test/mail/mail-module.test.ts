// The mail module without a mail server (docs/mail.md): which transport `modules.mail` picks in each
// environment, the production refusal, option checks, template overrides and their refusals, and a failed or
// slow send that neither throws nor holds up the event that asked for it.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectingLogger, createApp, type App, type Logger } from 'svckit';
import {
  mailModule,
  mailPlugin,
  type MailIntent,
  type MailMessage,
  type MailModuleContext,
  type MailTransport,
} from 'svckit/mail';

const DEV = { NODE_ENV: 'development' };
const PRODUCTION = { NODE_ENV: 'production' };
const USER = { id: 'user-7', email: 'pat@example.com', emailVerified: false };
const TOKEN = 'tok_Ab3-secret+/=';
const HOUR = 3_600_000;

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function context(overrides: Partial<MailModuleContext> = {}): MailModuleContext {
  return { serviceName: 'notes-api', sendsMail: true, env: DEV, ...overrides };
}

/** A transport that keeps what it is given. */
function capturing(): MailTransport & { sent: { message: MailMessage; intent?: MailIntent }[] } {
  const sent: { message: MailMessage; intent?: MailIntent }[] = [];
  return {
    sent,
    send(message, intent) {
      sent.push(intent === undefined ? { message } : { message, intent });
      return Promise.resolve();
    },
  };
}

async function bootWith(plugin: ReturnType<typeof mailPlugin>, logger?: Logger): Promise<App> {
  const app = createApp({ name: 'notes-api', ...(logger ? { logger } : {}) });
  app.register(plugin);
  apps.push(app);
  await app.boot();
  return app;
}

function requestReset(app: App, token = TOKEN): Promise<void> {
  return app.hooks.emit('auth:password_reset_requested', { user: USER, token, expiresAt: Date.now() + HOUR });
}

function thrown(run: () => unknown): Error & { code?: string; details?: unknown } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

function overrides(files: Record<string, string>): string {
  const project = mkdtempSync(join(tmpdir(), 'svc-mail-'));
  mkdirSync(join(project, 'mail'));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(project, 'mail', name), source);
  return project;
}

describe('mailModule: when it is on and where mail goes', () => {
  it('is off when modules.mail is absent or false and no module sends mail', () => {
    for (const setting of [undefined, false]) {
      expect(mailModule(setting, context({ sendsMail: false }))).toBeUndefined();
      expect(mailModule(setting, context({ sendsMail: false, env: PRODUCTION }))).toBeUndefined();
    }
    expect(mailModule(false, context())).toBeUndefined();
  });

  it('outside production, with auth and no setting, writes each mail as one JSON line with its link', async () => {
    const lines: string[] = [];
    const module = mailModule(undefined, context({ write: (line) => lines.push(line) }));
    const app = await bootWith(module!.plugin);
    await app.hooks.emit('app:listening', { app, url: 'http://127.0.0.1:4321' });
    await requestReset(app);
    await app.hooks.emit('auth:verify_requested', { user: USER, token: 'v1', expiresAt: Date.now() + HOUR });
    await app.close();

    const [reset, verify] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(reset).toMatchObject({
      level: 'info',
      kind: 'password-reset',
      to: USER.email,
      from: '"notes-api" <no-reply@localhost>',
      subject: 'Reset your notes-api password',
      link: `http://127.0.0.1:4321/auth/password/reset?token=${encodeURIComponent(TOKEN)}`,
      apiCall: `POST http://127.0.0.1:4321/auth/password/reset ${JSON.stringify({ token: TOKEN, password: '<new password>' })}`,
    });
    expect(verify).toMatchObject({
      kind: 'verify-email',
      subject: 'Confirm your email address for notes-api',
      link: 'http://127.0.0.1:4321/auth/verify?token=v1',
      apiCall: 'POST http://127.0.0.1:4321/auth/verify {"token":"v1"}',
    });
  });

  it('links point to linkBaseUrl when set, and the mail comes from `from`', async () => {
    const transport = capturing();
    const module = mailModule(
      { linkBaseUrl: 'https://app.example.com/', from: 'Notes <hello@example.com>' },
      context({ transport }),
    );
    const app = await bootWith(module!.plugin);
    await app.hooks.emit('app:listening', { app, url: 'http://127.0.0.1:4321' });
    await requestReset(app);
    const [{ message, intent } = { message: undefined }] = transport.sent;
    expect(intent?.link).toBe(
      `https://app.example.com/auth/password/reset?token=${encodeURIComponent(TOKEN)}`,
    );
    expect(message?.from).toBe('Notes <hello@example.com>');
    expect(message?.text).toContain(intent?.link);
    expect(message?.text).toContain('expires in 1 hour');
  });

  it('in production refuses to boot without a server when auth sends mail: MAIL_TRANSPORT_REQUIRED says what to set', () => {
    for (const [setting, env] of [
      [undefined, PRODUCTION],
      [true, PRODUCTION],
      [false, PRODUCTION],
      [{ url: '' }, PRODUCTION], // ${SMTP_URL:-} with SMTP_URL unset
      [undefined, {}], // NODE_ENV unset counts as production
    ] as const) {
      const error = thrown(() => mailModule(setting, context({ env })));
      expect(error.code).toBe('MAIL_TRANSPORT_REQUIRED');
      expect(error.message).toContain('modules.mail.url: ${SMTP_URL}');
      expect(error.message).toContain('smtp://');
    }
    // Enabled by the spec alone, it needs a server just the same.
    expect(thrown(() => mailModule(true, context({ sendsMail: false, env: PRODUCTION }))).code).toBe(
      'MAIL_TRANSPORT_REQUIRED',
    );
  });

  it('in production runs with an explicit log transport, a code transport or a url', () => {
    const production = context({ env: PRODUCTION });
    expect(mailModule({ transport: 'log' }, production)?.plugin.name).toBe('svc:mail');
    const transport = capturing();
    expect(mailModule(undefined, { ...production, transport })?.transport).toBe(transport);
    const smtp = mailModule({ url: 'smtp://user:pw@127.0.0.1:2525' }, production);
    expect(typeof smtp?.transport.close).toBe('function');
  });
});

describe('mailModule: settings refused with CONFIG_INVALID', () => {
  it.each([
    [{ tranport: 'log' }, 'modules.mail: unknown option "tranport" (did you mean "transport"?)'],
    [{ transport: 'sendmail' }, 'transport must be log or smtp, got "sendmail"'],
    [{ transport: 'smtp' }, 'transport smtp needs url'],
    [{ transport: 'smtp', url: '' }, 'transport smtp needs url'],
    [{ url: 'http://mail.example.com' }, 'url must be an smtp:// or smtps:// URL'],
    [{ from: 'not an address' }, 'from must be an address or Name <address>'],
    [{ linkBaseUrl: 'app.example.com' }, 'linkBaseUrl must be an http or https URL'],
    [
      { templates: 'no-such-dir' },
      'templates must be a directory of template overrides; no-such-dir is not a directory',
    ],
    ['yes', 'expected true, false or a mapping of options'],
  ])('%j', (setting, message) => {
    const error = thrown(() => mailModule(setting, context()));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(message);
  });

  it('never repeats the URL, which holds the password', () => {
    const error = thrown(() => mailModule({ url: 'ftp://user:hunter2@mail.example.com' }, context()));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('templates', () => {
  it('an override in the templates directory replaces that part only; only html parts are escaped', async () => {
    const project = overrides({
      'password-reset.subject.hbs': 'Password help for {{user.email}}\n',
      'password-reset.text.hbs': '{{serviceName}}: {{link}} ({{expiresIn}}, token {{token}})',
    });
    const transport = capturing();
    const module = mailModule(
      { templates: 'mail' },
      context({ transport, projectDir: project, serviceName: 'Notes & Co' }),
    );
    const app = await bootWith(module!.plugin);
    await requestReset(app);
    const message = transport.sent[0]?.message;
    expect(message?.subject).toBe('Password help for pat@example.com');
    const link = `/auth/password/reset?token=${encodeURIComponent(TOKEN)}`;
    expect(message?.text).toBe(`Notes & Co: ${link} (1 hour, token ${TOKEN})`);
    // The html part is svckit's, escaped.
    expect(message?.html).toContain('Notes &amp; Co account pat@example.com');
    expect(message?.html).toContain(`href="${link.replace('=', '&#x3D;')}"`);
  });

  it.each([
    ['password-reset.html.hbs', '<p>{{#if link}}open it</p>', 'Parse error'],
    ['verify-email.text.hbs', 'Open {{lnk}}', '"lnk" not defined'],
    ['pasword-reset.text.hbs', 'anything', 'not a mail template name'],
  ])('a broken override refuses to boot naming the file: %s', (name, source, reason) => {
    const project = overrides({ [name]: source });
    const error = thrown(() => mailModule({ templates: 'mail' }, context({ projectDir: project })));
    expect(error.code).toBe('MAIL_TEMPLATE_INVALID');
    expect(error.message).toContain(join('mail', name));
    expect(error.message).toContain(reason);
    expect(error.details).toEqual({ file: join('mail', name) });
  });
});

describe('sending', () => {
  it('a failed send is logged with MAIL_SEND_FAILED and without the token; the event does not fail', async () => {
    const logger = collectingLogger();
    const failing: MailTransport = {
      send: (message) => Promise.reject(new Error(`554 rejected: ${message.text}`)),
    };
    const app = await bootWith(mailPlugin({ transport: failing }), logger);
    await expect(requestReset(app)).resolves.toBeUndefined();
    await app.close();
    const [entry] = logger.at('error');
    expect(logger.at('error')).toHaveLength(1);
    expect(entry?.fields).toMatchObject({
      code: 'MAIL_SEND_FAILED',
      kind: 'password-reset',
      userId: USER.id,
    });
    expect(JSON.stringify(entry)).toContain('554 rejected');
    expect(JSON.stringify(entry)).not.toContain(TOKEN);
    expect(JSON.stringify(entry)).not.toContain(encodeURIComponent(TOKEN));
  });

  it("a failed send's line holds neither the recipient's address nor its URL-encoded form", async () => {
    const logger = collectingLogger();
    const failing: MailTransport = {
      send: (message) =>
        Promise.reject(
          new Error(`550 <${message.to.toUpperCase()}> unknown (${encodeURIComponent(message.to)})`),
        ),
    };
    const app = await bootWith(mailPlugin({ transport: failing }), logger);
    await requestReset(app);
    await app.close();
    const line = JSON.stringify(logger.at('error'));
    expect(line).toContain('550 <[REDACTED]> unknown ([REDACTED])');
    expect(line.toLowerCase()).not.toContain(USER.email);
    expect(line).not.toContain(encodeURIComponent(USER.email));
  });

  it('close gives up a send still under way after closeTimeout, counts it in one line, then closes the transport', async () => {
    const logger = collectingLogger();
    const steps: string[] = [];
    let fail!: (error: Error) => void;
    const stalled: MailTransport = {
      send: () => new Promise<void>((_resolve, reject) => (fail = reject)),
      close: () => {
        steps.push('transport closed');
        // What a transport does with the sends under way when it closes: it ends them.
        fail(new Error('aborted'));
        return Promise.resolve();
      },
    };
    const app = await bootWith(mailPlugin({ transport: stalled, closeTimeout: 0 }), logger);
    await requestReset(app);
    await app.close();
    expect(steps).toEqual(['transport closed']);
    // The abort that follows is not logged again as MAIL_SEND_FAILED.
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.at('error')).toEqual([
      {
        level: 'error',
        msg: 'Gave up 1 mail still sending 0 ms after the app began to close.',
        fields: { abandoned: 1, mails: [{ kind: 'password-reset', userId: USER.id }] },
      },
    ]);
  });

  it('a slow transport holds up neither the event nor later listeners; close waits for it, then closes it', async () => {
    const steps: string[] = [];
    let deliver!: () => void;
    const slow: MailTransport = {
      send: () =>
        new Promise<void>((resolve) => {
          steps.push('send started');
          deliver = () => {
            steps.push('delivered');
            resolve();
          };
        }),
      close: () => {
        steps.push('transport closed');
        return Promise.resolve();
      },
    };
    const app = await bootWith(mailPlugin({ transport: slow }));
    app.hooks.on('auth:password_reset_requested', () => void steps.push('next listener'));
    // Listeners run in microtasks: by the next turn of the event loop, an emit nobody holds up has returned.
    const emitted = requestReset(app).then(() => 'returned');
    const turn = new Promise((resolve) => setImmediate(() => resolve('still waiting')));
    expect(await Promise.race([emitted, turn])).toBe('returned');
    expect(steps).toEqual(['send started', 'next listener']);
    const closing = app.close();
    deliver();
    await closing;
    expect(steps).toEqual(['send started', 'next listener', 'delivered', 'transport closed']);
  });

  it('mailPlugin refuses unknown options and a transport without send', () => {
    const transport = capturing();
    expect(thrown(() => mailPlugin({ transport, form: 'a@b.c' } as never)).message).toContain(
      'mailPlugin(): unknown option "form" (did you mean "from"?)',
    );
    expect(thrown(() => mailPlugin({ transport: {} as MailTransport })).message).toContain(
      'transport must be a MailTransport',
    );
    expect(thrown(() => mailPlugin({ transport, closeTimeout: -1 })).message).toContain(
      'closeTimeout must be a whole number of milliseconds, 0 or more; got -1',
    );
  });
});
