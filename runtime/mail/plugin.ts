// The mail plugin: renders the auth module's verification and reset mails from the templates and hands them
// to the transport. Listeners start the send and return at once, so neither the request that raised the
// event nor later listeners wait for a mail server; a failed send is logged (MAIL_SEND_FAILED). On close, the
// mails in flight settle before the transport closes.
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { App, Plugin } from '../app/app.js';
// The auth events' payloads on the hook bus (declaration merging).
import type {} from '../auth/events.js';
import type { PublicUser } from '../auth/stores/users.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
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
}

const MAIL_PLUGIN_OPTIONS = optionKeys<MailPluginOptions>({
  transport: true,
  from: true,
  templates: true,
  linkBaseUrl: true,
  serviceName: true,
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
  const templates = loadMailTemplates(...templatesDir(options.templates, baseDir));
  return createMailPlugin({
    transport,
    templates,
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
  from?: string;
  linkBaseUrl?: string;
  serviceName?: string;
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
      const inFlight = new Set<Promise<void>>();
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
        const sending = deliver(kind, event).catch((error: unknown) =>
          logSendFailure(app.logger, { kind, userId: event.user.id, token: event.token, error }),
        );
        inFlight.add(sending);
        void sending.finally(() => inFlight.delete(sending));
      };

      app.hooks.on('auth:verify_requested', (event) => dispatch('verify-email', event));
      app.hooks.on('auth:password_reset_requested', (event) => dispatch('password-reset', event));
      app.hooks.on('app:closing', async () => {
        await Promise.allSettled(inFlight);
        await transport.close?.();
      });
    },
  };
}
