// The links and hints a mail carries. Links go to linkBaseUrl (a web front-end, or the service itself) at the
// path of the account route that spends the token; the page there posts the token to the API.
import type { MailKind } from './message.js';

const LINK_PATHS: Record<MailKind, string> = {
  'verify-email': '/auth/verify',
  'password-reset': '/auth/password/reset',
};

/** `<base>/auth/verify?token=…` or `<base>/auth/password/reset?token=…`; relative when no base is known. */
export function mailLink(kind: MailKind, baseUrl: string, token: string): string {
  return `${baseUrl}${LINK_PATHS[kind]}?token=${encodeURIComponent(token)}`;
}

/** The request the link's page makes, for a person following the flow by hand. */
export function apiCall(kind: MailKind, apiUrl: string, token: string): string {
  const body = kind === 'password-reset' ? { token, password: '<new password>' } : { token };
  return `POST ${apiUrl}${LINK_PATHS[kind]} ${JSON.stringify(body)}`;
}

/** A lifetime in words, rounded: `45 minutes`, `1 hour`, `24 hours`, `7 days`. */
export function lifetimeInWords(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 48) return plural(hours, 'hour');
  return plural(Math.round(hours / 24), 'day');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
