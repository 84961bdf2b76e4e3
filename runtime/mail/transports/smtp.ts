// The SMTP transport: nodemailer delivering to the server an smtp:// or smtps:// URL names (user and password
// in the URL, options such as `?pool=true` in its query). nodemailer logs nothing of its own, so neither the
// URL's password nor a mail's token reaches the log from here.
import nodemailer from 'nodemailer';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import type { MailMessage, MailTransport } from '../message.js';

export interface SmtpTransportOptions {
  /** `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://user:password@host:465`. */
  url: string;
}

const SMTP_TRANSPORT_OPTIONS = optionKeys<SmtpTransportOptions>({ url: true });

export function smtpTransport(options: SmtpTransportOptions): MailTransport {
  rejectUnknownOptions(options, SMTP_TRANSPORT_OPTIONS, 'smtpTransport()');
  const url = checkedSmtpUrl(options?.url);
  const transporter = nodemailer.createTransport(url);
  return {
    async send(message: MailMessage): Promise<void> {
      const { to, from, subject, text, html } = message;
      await transporter.sendMail({ to, from, subject, text, html });
    },
    close(): Promise<void> {
      transporter.close();
      return Promise.resolve();
    },
  };
}

/** The URL when it is an smtp:// or smtps:// URL with a host; messages never repeat it (it holds a password). */
export function checkedSmtpUrl(value: unknown): string {
  const expected = 'an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587';
  if (typeof value !== 'string' || value === '') throw invalidOption('smtpTransport()', 'url', expected);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw invalidOption('smtpTransport()', 'url', expected, 'the value given is not a URL');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw invalidOption('smtpTransport()', 'url', expected, `got a ${parsed.protocol} URL`);
  if (parsed.hostname === '') throw invalidOption('smtpTransport()', 'url', expected, 'it names no host');
  return value;
}
