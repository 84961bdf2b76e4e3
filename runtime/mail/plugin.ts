// The mail plugin: renders the auth module's verification and reset mails from the templates and hands them
// to the transport. Listeners start the send and return at once, so neither the request that raised the
// event nor later listeners wait for a mail server; a failed send is logged (MAIL_SEND_FAILED). On close, the
// mails in flight settle before the transport closes, for closeTimeout at most: a stalled server must not hold
// a shutdown (and the orchestrator's kill after it) for minutes.
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { App, Plugin } from '../app/app.js';
// The auth events' payloads on the hook bus (declaration merging).
import type {} from '../auth/events.js';
import type { PublicUser } from '../auth/stores/users.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { nonNegativeWholeNumber } from '../config/whole-number.js';
import { defaultFrom, isMailbox } from './address.js';
import { logSendFailure } from './failure-log.js';
import { apiCall, lifetimeInWords, mailLink } from './links.js';
import type { MailKind, MailTransport } from './message.js';
import { loadMailTemplates, type MailTemplates } from './templates.js';

export interface MailPluginOptions {
  /** Where mails go: logTransport(), smtpTransport({ url }) or the application's own. Closed with the app. */
  transport: MailTransport;
  /** The sender: an address or `Name <address>`. Default `"<serviceName>" <no-reply@localhost>`. */
  from?: string;
  /** A directory of template overrides (`<kind>.<part>.hbs`), relative to the working directory. */
  templates?: string;
  /** Where links point (an http or https URL, e.g. the web front-end). Default the URL the app listens on. */
  linkBaseUrl?: string;
  /** The `serviceName` templates see and the default sender's name. Default the app's name. */
  serviceName?: string;
  /**
   * Milliseconds app.close() waits for the mails in flight before it gives them up (one error line counts
   * them) and closes the transport. Default 10000.
   */
  closeTimeout?: number;
}

/** How long close waits for the mails in flight by default, in milliseconds. */
const MAIL_CLOSE_TIMEOUT_MS = 10_000;

const MAIL_PLUGIN_OPTIONS = optionKeys<MailPluginOptions>({
  transport: true,
  from: true,
  templates: true,
  linkBaseUrl: true,
  serviceName: true,
  closeTimeout: true,
});

const OWNER = 'mailPlugin()';

export function mailPlugin(options: MailPluginOptions): Plugin {
  return buildMailPlugin(options, process.cwd());
}

/** mailPlugin with `templates` resolved from `baseDir` (mailModule: the project directory). */
export function buildMailPlugin(options: MailPluginOptions, baseDir: string): Plugin {
  if (options === null || typeof options !== 'object') throw invalidOption(OWNER, 'options', 'an object');
  rejectUnknownOptions(options, MAIL_PLUGIN_OPTIONS, OWNER);
  const { transport } = options;
  if (transport === null || typeof transport !== 'object' || typeof transport.send !== 'function')
    throw invalidOption(OWNER, 'transport', 'a MailTransport: an object with send(message)');
  if (options.from !== undefined && (typeof options.from !== 'string' || !isMailbox(options.from)))
    throw invalidOption(OWNER, 'from', 'an address or Name <address>', `got ${JSON.stringify(options.from)}`);
  if (options.serviceName !== undefined && typeof options.serviceName !== 'string')
    throw invalidOption(OWNER, 'serviceName', 'a string');
  const linkBaseUrl = checkedLinkBase(options.linkBaseUrl);
  const closeTimeout = nonNegativeWholeNumber(
    options.closeTimeout,
    MAIL_CLOSE_TIMEOUT_MS,
    OWNER,
    'closeTimeout',
    'milliseconds',
  );
  const templates = loadMailTemplates(...templatesDir(options.templates, baseDir));
  return createMailPlugin({
    transport,
    templates,
    closeTimeout,
    ...(options.from === undefined ? {} : { from: options.from.trim() }),
    ...(linkBaseUrl === undefined ? {} : { linkBaseUrl }),
    ...(options.serviceName === undefined ? {} : { serviceName: options.serviceName }),
  });
}

/** The overrides directory, resolved, and as the option wrote it (for messages); a missing one is refused. */
function templatesDir(value: unknown, baseDir: string): [dir?: string, shown?: string] {
  if (value === undefined) return [];
  if (typeof value !== 'string' || value === '')
    throw invalidOption(OWNER, 'templates', 'a directory of template overrides');
  const dir = resolve(baseDir, value);
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // Missing: refused below like a file.
  }
  if (!isDirectory)
    throw invalidOption(
      OWNER,
      'templates',
      'a directory of template overrides',
      `${value} is not a directory`,
    );
  return [dir, value];
}

/** An http(s) URL without its trailing slash, or undefined when not set (an empty `${VAR:-}` included). */
function checkedLinkBase(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  const expected = 'an http or https URL, e.g. https://app.example.com';
  if (typeof value !== 'string') throw invalidOption(OWNER, 'linkBaseUrl', expected);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidOption(OWNER, 'linkBaseUrl', expected, `got ${JSON.stringify(value)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '')
    throw invalidOption(OWNER, 'linkBaseUrl', expected, 'without query or fragment');
  return value.replace(/\/+$/, '');
}

interface CheckedOptions {
  transport: MailTransport;
  templates: MailTemplates;
  closeTimeout: number;
  from?: string;
  linkBaseUrl?: string;
  serviceName?: string;
}

interface InFlightMail {
  kind: MailKind;
  userId: string;
  abandoned: boolean;
}

/** Whether every promise settled within `ms`. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Gives up the mails still under way: one error line counts them and names whose they were. */
function abandon(mails: InFlightMail[], waitedMs: number, app: App): void {
  const pending = mails.filter((mail) => !mail.abandoned);
  for (const mail of pending) mail.abandoned = true;
  if (pending.length === 0) return;
  const count = pending.length === 1 ? '1 mail' : `${pending.length} mails`;
  app.logger.error(`Gave up ${count} still sending ${waitedMs} ms after the app began to close.`, {
    abandoned: pending.length,
    mails: pending.map(({ kind, userId }) => ({ kind, userId })),
  });
}

interface TokenEvent {
  user: PublicUser;
  token: string;
  expiresAt: number;
}

function createMailPlugin(options: CheckedOptions): Plugin {
  const { transport, templates } = options;
  return {
    name: 'svc:mail',
    setup(app: App) {
      // Each mail under way, with what the line about it names should close give it up.
      const inFlight = new Map<Promise<void>, InFlightMail>();
      const serviceName = options.serviceName ?? app.name;
      const from = options.from ?? defaultFrom(serviceName);
      // Links point where the service listens unless set, known once it does (port 0 picks a free port).
      let listeningUrl = '';
      app.hooks.on('app:listening', ({ url }) => void (listeningUrl = url));

      const deliver = async (kind: MailKind, event: TokenEvent): Promise<void> => {
        const linkBaseUrl = options.linkBaseUrl ?? listeningUrl;
        const link = mailLink(kind, linkBaseUrl, event.token);
        const parts = templates.render(kind, {
          serviceName,
          user: event.user,
          token: event.token,
          link,
          linkBaseUrl,
          expiresAt: new Date(event.expiresAt).toISOString(),
          expiresIn: lifetimeInWords(event.expiresAt - Date.now()),
        });
        await transport.send(
          { to: event.user.email, from, ...parts },
          { kind, link, apiCall: apiCall(kind, listeningUrl, event.token) },
        );
      };
      const dispatch = (kind: MailKind, event: TokenEvent): void => {
        const mail: InFlightMail = { kind, userId: event.user.id, abandoned: false };
        const sending = deliver(kind, event).catch((error: unknown) => {
          // An abandoned mail was counted when close gave it up; its late failure (the abort) says nothing new.
          if (mail.abandoned) return;
          const { token } = event;
          logSendFailure(app.logger, { kind, userId: mail.userId, to: event.user.email, token, error });
        });
        inFlight.set(sending, mail);
        void sending.finally(() => inFlight.delete(sending));
      };

      app.hooks.on('auth:verify_requested', (event) => dispatch('verify-email', event));
      app.hooks.on('auth:password_reset_requested', (event) => dispatch('password-reset', event));
      // After the server drained: a request answered during the drain may still have asked for a mail.
      app.hooks.on('app:closed', async () => {
        const settled = await settledWithin([...inFlight.keys()], options.closeTimeout);
        if (!settled) abandon([...inFlight.values()], options.closeTimeout, app);
        await transport.close?.();
      });
    },
  };
}
