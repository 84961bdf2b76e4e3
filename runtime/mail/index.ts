// The mail module: the auth module's verification and password-reset mails rendered from handlebars
// templates and handed to a transport (log or SMTP, or the application's own). docs/mail.md.
export { mailModule, type MailModuleContext } from './config.js';
export { mailPlugin, type MailPluginOptions } from './plugin.js';
export {
  MAIL_KINDS,
  type MailIntent,
  type MailKind,
  type MailMessage,
  type MailTransport,
} from './message.js';
export { MAIL_PARTS, type MailPart, type MailVariables } from './templates.js';
export { logTransport, type LogTransportOptions } from './transports/log.js';
export { smtpTransport, type SmtpTransportOptions } from './transports/smtp.js';
