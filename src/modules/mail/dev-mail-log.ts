// The reference service sends no mail. In development it writes each verification or reset mail it would
// send to its log as one JSON line holding the link, so a person can follow the flow without a mail server.
// In production the events have no listener here: an application wires its mailer to the same events.
import { isProductionEnv, type App } from 'svckit/core';

interface MailLine {
  level: 'info';
  msg: 'mail not sent (development)';
  to: string;
  subject: string;
  link: string;
  /** What the link's page would do with the token, for a person trying the API by hand. */
  then: string;
}

export function logMailsInDevelopment(app: App, write = writeLine): void {
  if (isProductionEnv()) return;
  // Links point where the service listens, known once it does (PORT=0 picks a free port).
  let baseUrl = '';
  app.hooks.on('app:listening', ({ url }) => void (baseUrl = url));
  app.hooks.on('auth:verify_requested', ({ user, token }) =>
    write({
      level: 'info',
      msg: 'mail not sent (development)',
      to: user.email,
      subject: 'Confirm your email address',
      link: `${baseUrl}/auth/verify?token=${encodeURIComponent(token)}`,
      then: `POST ${baseUrl}/auth/verify {"token":"${token}"}`,
    }),
  );
  app.hooks.on('auth:password_reset_requested', ({ user, token }) =>
    write({
      level: 'info',
      msg: 'mail not sent (development)',
      to: user.email,
      subject: 'Reset your password',
      link: `${baseUrl}/auth/password/reset?token=${encodeURIComponent(token)}`,
      then: `POST ${baseUrl}/auth/password/reset {"token":"${token}","password":"<new password>"}`,
    }),
  );
}

function writeLine(line: MailLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
