// A mail that could not be sent is logged, never thrown: the request that asked for it was answered already.
// The line names the mail's kind and the user, not the address, and the one-time token and the recipient's
// address are cut out of every string of the error (a server may echo what it refused: "550 mailbox
// <pat@example.com> unknown"), so the log holds neither a usable link nor the address.
import { errors } from '../../generated/modules/errors.js';
import { errorFields } from '../log/error-fields.js';
import type { Logger } from '../log/logger.js';
import type { MailKind } from './message.js';
import { secretForms, withoutSecrets } from './redact.js';

export function logSendFailure(
  logger: Logger,
  failure: { kind: MailKind; userId: string; to: string; token: string; error: unknown },
): void {
  const { code, message } = errors.MAIL_SEND_FAILED();
  logger.error(message, {
    code,
    kind: failure.kind,
    userId: failure.userId,
    error: withoutSecrets(errorFields(failure.error), secretForms(failure.token, failure.to)),
  });
}
