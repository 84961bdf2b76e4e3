// Cutting secrets out of what a mail server answered: an SMTP server may echo the recipient, the one-time
// token or the credentials it refused in its error text, and that text ends up in the log.
import { REDACTED } from '../http/redact.js';

/** The secrets as written and URL-encoded (a link or a URL carries them encoded); empty ones dropped. */
export function secretForms(...secrets: readonly string[]): string[] {
  const forms = secrets.flatMap((secret) => [secret, encodeURIComponent(secret)]);
  return [...new Set(forms.filter((form) => form !== ''))];
}

/**
 * `value` with every occurrence of the secrets in its strings, at any depth, replaced by `[REDACTED]`.
 * Matching ignores case: servers may lower-case an address, and a wider cut only hides more.
 */
export function withoutSecrets(value: unknown, secrets: readonly string[]): unknown {
  const pattern = secretPattern(secrets);
  return pattern === undefined ? value : redacted(value, pattern);
}

/** The error with the secrets cut out of its message, stack and server response (nodemailer's `response`). */
export function redactErrorInPlace(error: unknown, secrets: readonly string[]): void {
  const pattern = secretPattern(secrets);
  if (pattern === undefined || error === null || typeof error !== 'object') return;
  const fields = error as Record<string, unknown>;
  for (const key of ['message', 'stack', 'response']) {
    const text = fields[key];
    if (typeof text === 'string') fields[key] = text.replace(pattern, REDACTED);
  }
}

function secretPattern(secrets: readonly string[]): RegExp | undefined {
  const present = secrets.filter((secret) => secret !== '');
  if (present.length === 0) return undefined;
  // Longest first, so a secret that contains another is cut whole.
  const alternatives = [...present].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(alternatives.join('|'), 'gi');
}

function redacted(value: unknown, pattern: RegExp): unknown {
  if (typeof value === 'string') return value.replace(pattern, REDACTED);
  if (Array.isArray(value)) return value.map((item) => redacted(item, pattern));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redacted(item, pattern)]));
  }
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
