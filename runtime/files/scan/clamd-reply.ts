// What clamd's one-line answer to INSTREAM means. Only the exact `stream: OK` is a clean verdict: every
// other line (an error, a truncated answer, something unexpected) must leave the file quarantined.

/** What clamd said about one stream, or why it said nothing usable. */
export type ClamdScanOutcome =
  /** `stream: OK`. */
  | { status: 'clean' }
  /** `stream: <signature> FOUND`. */
  | { status: 'infected'; signature: string }
  /** More bytes than clamd's StreamMaxLength (clamd refused), or than the client's own cap (nothing more sent). */
  | { status: 'too-large'; message: string }
  /** clamd could not be reached: refused, no such socket, unreachable host. */
  | { status: 'unavailable'; message: string }
  /** No progress within `timeoutMs` while connecting, sending or waiting for the answer. */
  | { status: 'timeout'; stage: 'connect' | 'send' | 'reply'; message: string }
  /** Anything else: an error line from clamd, a dropped connection, an unreadable source. */
  | { status: 'error'; message: string };

const STREAM_OK = 'stream: OK';
const FOUND = /^stream: (.+) FOUND$/;
const SIZE_LIMIT = 'INSTREAM size limit exceeded. ERROR';

/** Longest reply kept for a log line: clamd's answers are short, anything longer is not clamd. */
export const MAX_REPLY_LENGTH = 1024;

/** Reads one reply line of the `z` (NUL-terminated) protocol, without its terminator. */
export function parseClamdReply(line: string): ClamdScanOutcome {
  const text = line.replace(/\0+$/, '').trim();
  if (text === STREAM_OK) return { status: 'clean' };
  if (text === SIZE_LIMIT) return { status: 'too-large', message: 'clamd: StreamMaxLength exceeded' };
  const found = FOUND.exec(text);
  if (found !== null) return { status: 'infected', signature: found[1] as string };
  if (text === '') return { status: 'error', message: 'clamd closed the connection without an answer' };
  return { status: 'error', message: `clamd answered: ${printable(text)}` };
}

/** The reply as safe log text: control characters escaped, length capped. */
function printable(text: string): string {
  const capped = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return JSON.stringify(capped).slice(1, -1);
}
