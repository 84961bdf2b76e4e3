// A mail that could not be sent is logged, never thrown: the request that asked for it was answered already.
// The line names the mail's kind and the user, not the address, and the one-time token is cut out of every
// string of the error (a server may echo what it refused), so the log never holds a usable link.
import { errors } from '../../generated/modules/errors.js';
import { REDACTED } from '../http/redact.js';
import { errorFields } from '../log/error-fields.js';
import type { Logger } from '../log/logger.js';
import type { MailKind } from './message.js';

export function logSendFailure(
  logger: Logger,
  failure: { kind: MailKind; userId: string; token: string; error: unknown },
): void {
  const { code, message } = errors.MAIL_SEND_FAILED();
  const secrets = [failure.token, encodeURIComponent(failure.token)].filter((secret) => secret !== '');
  logger.error(message, {
    code,
    kind: failure.kind,
    userId: failure.userId,
    error: withoutSecrets(errorFields(failure.error), secrets),
  });
}

function withoutSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string')
    return secrets.reduce((text, secret) => text.split(secret).join(REDACTED), value);
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutSecrets(item, secrets)]),
    );
  }
  return value;
}
