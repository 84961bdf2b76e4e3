// What the mail module sends and the seam it sends through: a MailTransport takes a rendered message (and,
// for transports that log rather than deliver, what the mail is for). Applications and tests pass their own.

/** The mails svckit sends, one per auth event that carries a one-time token. */
export const MAIL_KINDS = ['verify-email', 'password-reset'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** A rendered mail, ready to deliver. */
export interface MailMessage {
  to: string;
  /** An address or `Name <address>`. */
  from: string;
  /** One line: line breaks a template produces are folded into spaces. */
  subject: string;
  text: string;
  html: string;
}

/**
 * What a mail is for, beside its rendered parts. A delivering transport ignores it; the log transport prints
 * it so a person can follow the flow by hand. It holds the one-time token (in `link` and `apiCall`).
 */
export interface MailIntent {
  kind: MailKind;
  /** The link the mail carries (to linkBaseUrl). */
  link: string;
  /** The API call the link's page makes with the token, e.g. `POST http://…/auth/verify {"token":"…"}`. */
  apiCall: string;
}

export interface MailTransport {
  /** Resolves once the mail is handed over; rejects when it was not (the module logs MAIL_SEND_FAILED). */
  send(message: MailMessage, intent?: MailIntent): Promise<void>;
  /**
   * Called once when the app closes, after the mails in flight settled or the plugin's closeTimeout ran out;
   * it should then end the sends still under way (the plugin has given them up).
   */
  close?(): Promise<void>;
}
