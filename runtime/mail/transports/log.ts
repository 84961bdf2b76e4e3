// The log transport: sends nothing, writes one JSON line per mail with its recipient, subject, link and the
// API call the link leads to, so a person can follow verification and reset without a mail server. The
// default outside production; chosen explicitly in production, it prints one-time tokens to the log.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { jsonLogLine } from '../../log/json-logger.js';
import type { MailIntent, MailMessage, MailTransport } from '../message.js';

export interface LogTransportOptions {
  /** Receives each line without its newline. Default: written to stdout with one. */
  write?: (line: string) => void;
}

const LOG_TRANSPORT_OPTIONS = optionKeys<LogTransportOptions>({ write: true });

const writeToStdout = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export function logTransport(options: LogTransportOptions = {}): MailTransport {
  rejectUnknownOptions(options, LOG_TRANSPORT_OPTIONS, 'logTransport()');
  if (options.write !== undefined && typeof options.write !== 'function')
    throw invalidOption('logTransport()', 'write', 'a function taking one line');
  const write = options.write ?? writeToStdout;
  return {
    send(message: MailMessage, intent?: MailIntent): Promise<void> {
      const fields = {
        ...(intent === undefined ? {} : { kind: intent.kind }),
        to: message.to,
        from: message.from,
        subject: message.subject,
        ...(intent === undefined ? { text: message.text } : { link: intent.link, apiCall: intent.apiCall }),
      };
      write(jsonLogLine('info', new Date(), 'mail not sent (log transport)', fields));
      return Promise.resolve();
    },
  };
}
