// The mail module svc.config.yaml enables under `modules.mail` (docs/mail.md): `true` or a mapping of options;
// absent, it is on with its defaults when a module sends mail (auth). Outside production mails go to the log
// by default; in production they need a server (`url`), else the service refuses to boot
// (MAIL_TRANSPORT_REQUIRED) rather than run with verification and reset links nobody receives.
import { errors } from '../../generated/modules/errors.js';
import type { Plugin } from '../app/app.js';
import {
  fromSettings,
  invalidSetting,
  moduleSettings,
  rejectUnknownSettings,
} from '../config/module-settings.js';
import { isProductionEnv } from '../config/node-env.js';
import { DURATION_FORMS, parseDuration } from '../../shared/duration.js';
import type { MailTransport } from './message.js';
import { buildMailPlugin, type MailPluginOptions } from './plugin.js';
import { logTransport } from './transports/log.js';
import {
  checkedSmtpUrl,
  SMTP_TIMEOUT_NAMES,
  smtpTransport,
  type SmtpTransportOptions,
} from './transports/smtp.js';

export interface MailModuleContext {
  /** The spec's `name`: the default sender's name and the templates' `serviceName`. */
  serviceName: string;
  /** Whether an enabled module sends mail (auth): the mail module is then on when `modules.mail` is absent. */
  sendsMail: boolean;
  /** Default process.env; NODE_ENV decides the default transport. */
  env?: Record<string, string | undefined>;
  /** What `templates` is relative to. Default the working directory. */
  projectDir?: string;
  /** A transport from code; replaces `transport` and `url`. */
  transport?: MailTransport;
  /** Where the log transport writes each line. Default stdout. */
  write?: (line: string) => void;
}

const OPTION_NAMES = ['transport', 'url', 'from', 'templates', 'linkBaseUrl', ...SMTP_TIMEOUT_NAMES];
const SET_URL =
  'Set modules.mail.url: ${SMTP_URL} with SMTP_URL=smtp://user:password@host:587 (or smtps://…:465).';

/** The mail plugin `modules.mail` enables and the transport it sends through, or undefined when it is off. */
export function mailModule(
  setting: unknown,
  context: MailModuleContext,
): { plugin: Plugin; transport: MailTransport } | undefined {
  const env = context.env ?? process.env;
  const production = isProductionEnv(env.NODE_ENV);
  let settings = moduleSettings(setting, 'mail');
  if (settings === undefined) {
    if (!context.sendsMail) return undefined;
    if (setting === false) {
      if (production) {
        throw transportRequired(
          env,
          'modules.mail is false, but the auth module sends verification and password-reset mails.',
        );
      }
      return undefined;
    }
    settings = {};
  }
  rejectUnknownSettings(settings, OPTION_NAMES, 'mail');
  const transport = chosenTransport(settings, context, production, env);
  const options: MailPluginOptions = { transport, serviceName: context.serviceName };
  for (const name of ['from', 'templates', 'linkBaseUrl'] as const) {
    const value = settings[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidSetting('mail', `${name} must be a string`);
    options[name] = value;
  }
  const plugin = fromSettings('mail', () => buildMailPlugin(options, context.projectDir ?? process.cwd()));
  return { plugin, transport };
}

function chosenTransport(
  settings: Readonly<Record<string, unknown>>,
  context: MailModuleContext,
  production: boolean,
  env: Record<string, string | undefined>,
): MailTransport {
  const choice = settings.transport;
  if (choice !== undefined && choice !== 'log' && choice !== 'smtp')
    throw invalidSetting('mail', `transport must be log or smtp, got ${JSON.stringify(choice)}`);
  // An empty url (`${SMTP_URL:-}` with SMTP_URL unset) is no url.
  const url = settings.url === '' ? undefined : settings.url;
  if (url !== undefined) fromSettings('mail', () => checkedSmtpUrl(url));
  const timeouts = smtpTimeouts(settings);
  if (context.transport) return context.transport;
  const log = () => logTransport(context.write === undefined ? {} : { write: context.write });
  if (choice === 'log') return log();
  if (url !== undefined)
    return fromSettings('mail', () => smtpTransport({ url: url as string, ...timeouts }));
  if (choice === 'smtp') {
    throw invalidSetting(
      'mail',
      'transport smtp needs url: an smtp:// or smtps:// URL, usually ${SMTP_URL} (SMTP_URL is unset or empty)',
    );
  }
  if (!production) return log();
  throw transportRequired(
    env,
    context.sendsMail
      ? 'The auth module sends verification and password-reset mails, and modules.mail has no url.'
      : 'modules.mail is on but has no url.',
  );
}

/** The SMTP timeouts set (durations: `10s`, or milliseconds), checked whichever transport is chosen. */
function smtpTimeouts(settings: Readonly<Record<string, unknown>>): Partial<SmtpTransportOptions> {
  const timeouts: Partial<SmtpTransportOptions> = {};
  for (const name of SMTP_TIMEOUT_NAMES) {
    const value = settings[name];
    if (value === undefined) continue;
    const ms = parseDuration(value);
    if (ms === undefined || ms < 1) {
      throw invalidSetting(
        'mail',
        `${name} must be ${DURATION_FORMS}, at least 1ms; got ${JSON.stringify(value)}`,
      );
    }
    timeouts[name] = ms;
  }
  return timeouts;
}

function transportRequired(env: Record<string, string | undefined>, why: string): Error {
  const mode = env.NODE_ENV === undefined ? 'NODE_ENV unset' : `NODE_ENV=${env.NODE_ENV}`;
  return errors.MAIL_TRANSPORT_REQUIRED({
    message: `No mail transport in production (${mode}). ${why} ${SET_URL}`,
    details: { option: 'modules.mail.url' },
  });
}
