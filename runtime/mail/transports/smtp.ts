// The SMTP transport: nodemailer delivering to the server an smtp:// or smtps:// URL names (user and password
// in the URL, options such as `?pool=true` in its query). nodemailer logs nothing of its own, and the URL's
// password is cut out of the errors a send rejects with (a server may echo the credentials it refused), so
// neither the password nor a mail's token reaches the log from here.
//
// Its timeouts are short next to nodemailer's (2 minutes to connect, 10 minutes of silence): a mail is sent
// in the background, and a stalled server should fail the mail, not hold the app's close for minutes.
import nodemailer from 'nodemailer';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { MailMessage, MailTransport } from '../message.js';
import { redactErrorInPlace, secretForms } from '../redact.js';

export interface SmtpTransportOptions {
  /** `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://user:password@host:465`. */
  url: string;
  /** Milliseconds to open the connection (DNS included). Default 10000. */
  connectionTimeout?: number;
  /** Milliseconds from connecting to the server's greeting. Default 10000. */
  greetingTimeout?: number;
  /** Milliseconds the server may stay silent once connected before the mail fails. Default 30000. */
  socketTimeout?: number;
}

/** The defaults of the three timeouts, in milliseconds. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

type SmtpTimeoutName = keyof typeof SMTP_TIMEOUTS;
export const SMTP_TIMEOUT_NAMES = Object.keys(SMTP_TIMEOUTS) as SmtpTimeoutName[];

const SMTP_TRANSPORT_OPTIONS = optionKeys<SmtpTransportOptions>({
  url: true,
  connectionTimeout: true,
  greetingTimeout: true,
  socketTimeout: true,
});

const OWNER = 'smtpTransport()';

export function smtpTransport(options: SmtpTransportOptions): MailTransport {
  rejectUnknownOptions(options, SMTP_TRANSPORT_OPTIONS, OWNER);
  const url = checkedSmtpUrl(options?.url);
  const timeouts = Object.fromEntries(
    SMTP_TIMEOUT_NAMES.map((name) => [
      name,
      positiveWholeNumber(options[name], SMTP_TIMEOUTS[name], OWNER, name),
    ]),
  );
  // Keys beside `url` apply where the URL's query does not set them (`?socketTimeout=60000` wins).
  const transporter = nodemailer.createTransport({ ...timeouts, url });
  const secrets = secretForms(...passwordForms(url));
  // Sends under way, so close() can give them up instead of leaving their connections open.
  const sending = new Set<AbortController>();
  return {
    async send(message: MailMessage): Promise<void> {
      const { to, from, subject, text, html } = message;
      const abort = new AbortController();
      sending.add(abort);
      try {
        await transporter.sendMail({ to, from, subject, text, html, signal: abort.signal });
      } catch (error) {
        redactErrorInPlace(error, secrets);
        throw error;
      } finally {
        sending.delete(abort);
      }
    },
    close(): Promise<void> {
      for (const abort of sending) abort.abort();
      transporter.close();
      return Promise.resolve();
    },
  };
}

/** The URL's password as the URL writes it and decoded (as the server sees it); none when it has none. */
function passwordForms(url: string): string[] {
  const { password } = new URL(url);
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/** The URL when it is an smtp:// or smtps:// URL with a host; messages never repeat it (it holds a password). */
export function checkedSmtpUrl(value: unknown): string {
  const expected = 'an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587';
  if (typeof value !== 'string' || value === '') throw invalidOption(OWNER, 'url', expected);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw invalidOption(OWNER, 'url', expected, 'the value given is not a URL');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw invalidOption(OWNER, 'url', expected, `got a ${parsed.protocol} URL`);
  if (parsed.hostname === '') throw invalidOption(OWNER, 'url', expected, 'it names no host');
  return value;
}
