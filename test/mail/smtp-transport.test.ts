// The SMTP transport against servers that misbehave, on loopback: one that goes silent mid-mail cannot hold
// app.close() past closeTimeout (the mail is given up, its connection closed, one line counts it) and fails the
// mail once socketTimeout passes; the transport's timeouts default to seconds, not nodemailer's minutes; and
// what a refusing server echoes (the recipient's address, the password it refused) stays out of the log.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectingLogger, createApp, type App, type CollectingLogger, type Plugin } from 'svckit';
import { mailModule, mailPlugin, smtpTransport } from 'svckit/mail';

const USER = { id: 'user-7', email: 'Pat.Doe+notes@example.com', emailVerified: true };
const TOKEN = 'tok_Ab3-secret';
const ENV = { NODE_ENV: 'production' };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface StalledServer {
  url: string;
  /** Resolves when a client has sent MAIL FROM, which the server never answers. */
  mailFrom: Promise<void>;
  /** Resolves when that client's connection has closed. */
  clientGone: Promise<void>;
}

/** Greets, answers EHLO, then never answers again. */
async function stalledServer(): Promise<StalledServer> {
  let mailFromSeen!: () => void;
  const mailFrom = new Promise<void>((resolve) => (mailFromSeen = resolve));
  let gone!: () => void;
  const clientGone = new Promise<void>((resolve) => (gone = resolve));
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      gone();
    });
    socket.on('error', () => undefined);
    socket.write('220 stalled ESMTP\r\n');
    socket.on('data', (data: Buffer) => {
      const text = data.toString();
      if (/^EHLO/im.test(text)) socket.write('250 stalled\r\n');
      if (/^MAIL FROM/im.test(text)) mailFromSeen();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mailFrom, clientGone };
}

async function bootWith(plugin: Plugin, logger: CollectingLogger): Promise<App> {
  const app = createApp({ name: 'notes-api', logger });
  app.register(plugin);
  cleanups.push(() => app.close());
  await app.boot();
  return app;
}

function requestReset(app: App): Promise<void> {
  return app.hooks.emit('auth:password_reset_requested', {
    user: USER,
    token: TOKEN,
    expiresAt: Date.now() + 3_600_000,
  });
}

describe('a server that stalls mid-mail', () => {
  it('app.close() gives the mail up after closeTimeout: one error line counts it, its connection closes', async () => {
    const server = await stalledServer();
    const logger = collectingLogger();
    const transport = smtpTransport({ url: server.url });
    const app = await bootWith(mailPlugin({ transport, closeTimeout: 50 }), logger);
    await requestReset(app);
    await server.mailFrom;

    await app.close();
    await server.clientGone;
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe('Gave up 1 mail still sending 50 ms after the app began to close.');
    expect(errors[0]?.fields).toEqual({
      abandoned: 1,
      mails: [{ kind: 'password-reset', userId: USER.id }],
    });
  }, 10_000);

  it('past socketTimeout (modules.mail) the mail fails and is logged, within close', async () => {
    const server = await stalledServer();
    const logger = collectingLogger();
    const mail = mailModule(
      { url: server.url, socketTimeout: '100ms' },
      { serviceName: 'notes-api', sendsMail: true, env: ENV },
    );
    const app = await bootWith(mail!.plugin, logger);
    await requestReset(app);
    await server.mailFrom;

    await app.close();
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({
      code: 'MAIL_SEND_FAILED',
      error: { code: 'ETIMEDOUT' },
    });
  }, 10_000);
});

describe('smtpTransport timeouts', () => {
  it('default to 10 s to connect, 10 s for the greeting and 30 s of silence; options set them', () => {
    const create = vi.spyOn(nodemailer, 'createTransport');
    try {
      smtpTransport({ url: 'smtp://127.0.0.1:2525' });
      expect(create).toHaveBeenLastCalledWith(
        expect.objectContaining({
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        }),
      );
      smtpTransport({
        url: 'smtp://127.0.0.1:2525',
        connectionTimeout: 1,
        greetingTimeout: 2,
        socketTimeout: 3,
      });
      expect(create).toHaveBeenLastCalledWith(
        expect.objectContaining({ connectionTimeout: 1, greetingTimeout: 2, socketTimeout: 3 }),
      );
    } finally {
      create.mockRestore();
    }
  });

  it('refuses a timeout that is not a whole number of milliseconds, 1 or more', () => {
    expect(() => smtpTransport({ url: 'smtp://127.0.0.1:2525', socketTimeout: 0 })).toThrow(
      'smtpTransport(): socketTimeout must be a whole number, 1 or more.',
    );
    expect(() =>
      mailModule(
        { url: 'smtp://127.0.0.1:2525', greetingTimeout: 'soon' },
        { serviceName: 'n', sendsMail: true, env: ENV },
      ),
    ).toThrow(/modules\.mail.*greetingTimeout must be .*got "soon"/);
  });
});

describe('what a refusing server echoes stays out of the log', () => {
  /** An SMTP server that refuses every login and every recipient, repeating what it refused. */
  async function refusingServer(): Promise<number> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        callback(new Error(`bad credentials for ${auth.username}/${auth.password}`));
      },
      onRcptTo(address, _session, callback) {
        const echoed = `${address.address} (${encodeURIComponent(address.address)})`;
        callback(
          Object.assign(new Error(`mailbox <${echoed.toLowerCase()}> unknown`), { responseCode: 550 }),
        );
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return (server.server.address() as AddressInfo).port;
  }

  async function failureLine(url: string): Promise<string> {
    const logger = collectingLogger();
    const app = await bootWith(mailPlugin({ transport: smtpTransport({ url }) }), logger);
    await requestReset(app);
    await app.close();
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ code: 'MAIL_SEND_FAILED', userId: USER.id });
    return JSON.stringify(errors[0]);
  }

  it("the recipient's address, as written, lower-cased or URL-encoded", async () => {
    const line = await failureLine(`smtp://127.0.0.1:${await refusingServer()}`);
    expect(line).toContain('550 mailbox <[REDACTED] ([REDACTED])> unknown');
    for (const form of [USER.email, encodeURIComponent(USER.email)]) {
      expect(line.toLowerCase()).not.toContain(form.toLowerCase());
    }
  });

  it("the url's password", async () => {
    const password = 'S3cret Pass/1';
    const port = await refusingServer();
    const line = await failureLine(`smtp://alice:${encodeURIComponent(password)}@127.0.0.1:${port}`);
    expect(line).toContain('bad credentials for alice/[REDACTED]');
    expect(line).not.toContain(password);
    expect(line).not.toContain(encodeURIComponent(password));
  });
});
