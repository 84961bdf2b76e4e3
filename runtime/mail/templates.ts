// The handlebars templates mails are rendered from: one file per mail kind and part,
// `<kind>.<part>.hbs` (verify-email or password-reset; subject, text or html), svckit's own under the package's
// templates/mail/, any of them replaced by a same-named file in the application's directory. Every template is
// compiled and rendered once with sample values when the module starts, so a syntax error or a misspelt
// variable refuses to boot naming the file instead of failing each send. Only html parts are HTML-escaped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { errors } from '../../generated/modules/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import type { PublicUser } from '../auth/stores/users.js';
import { MAIL_KINDS, type MailKind } from './message.js';

export const MAIL_PARTS = ['subject', 'text', 'html'] as const;
export type MailPart = (typeof MAIL_PARTS)[number];

/** What a template sees. */
export interface MailVariables {
  /** The service's name (the spec's `name`). */
  serviceName: string;
  /** The recipient: `id`, `email`, `emailVerified`. */
  user: PublicUser;
  /** The one-time token the link carries, for templates that build their own link. */
  token: string;
  /** `<linkBaseUrl>/auth/verify?token=…` or `<linkBaseUrl>/auth/password/reset?token=…`. */
  link: string;
  /** Where links point, without a trailing slash (empty when the service never listened and none is set). */
  linkBaseUrl: string;
  /** When the token expires, ISO 8601. */
  expiresAt: string;
  /** How long the token lives, in words: `1 hour`, `24 hours`. */
  expiresIn: string;
}

export interface RenderedParts {
  subject: string;
  text: string;
  html: string;
}

export interface MailTemplates {
  render(kind: MailKind, variables: MailVariables): RenderedParts;
}

type Render = (variables: MailVariables) => string;

const SAMPLE: MailVariables = {
  serviceName: 'svc',
  user: { id: 'user-1', email: 'someone@example.com', emailVerified: false },
  token: 'sample-token',
  link: 'http://127.0.0.1:3000/auth/verify?token=sample-token',
  linkBaseUrl: 'http://127.0.0.1:3000',
  expiresAt: new Date(0).toISOString(),
  expiresIn: '1 hour',
};

/** svckit's own templates, found from the package root so they load from the sources and from dist/ alike. */
export function defaultTemplatesDir(): string {
  return join(packageRoot(), 'templates', 'mail');
}

/**
 * Compiles every template: svckit's, each replaced by the file of the same name in `overridesDir` when there
 * is one. `shownDir` is how messages name the overrides directory (as the setting wrote it).
 */
export function loadMailTemplates(overridesDir?: string, shownDir = overridesDir): MailTemplates {
  const overrides = overridesDir === undefined ? new Set<string>() : overrideNames(overridesDir, shownDir);
  const handlebars = Handlebars.create();
  const compiled = new Map<string, Render>();
  for (const kind of MAIL_KINDS) {
    for (const part of MAIL_PARTS) {
      const name = fileName(kind, part);
      const overridden = overridesDir !== undefined && overrides.has(name);
      const path = join(overridden ? overridesDir : defaultTemplatesDir(), name);
      const shown = overridden && shownDir !== undefined ? join(shownDir, name) : path;
      compiled.set(name, compile(handlebars, path, shown, part));
    }
  }
  return {
    render(kind, variables) {
      const part = (name: MailPart) => (compiled.get(fileName(kind, name)) as Render)(variables);
      return { subject: oneLine(part('subject')), text: part('text'), html: part('html') };
    },
  };
}

function fileName(kind: MailKind, part: MailPart): string {
  return `${kind}.${part}.hbs`;
}

/** The `.hbs` files of the overrides directory; a name that is no template's is refused (likely a typo). */
function overrideNames(dir: string, shownDir: string | undefined): Set<string> {
  const known = MAIL_KINDS.flatMap((kind) => MAIL_PARTS.map((part) => fileName(kind, part)));
  const names = new Set<string>();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.hbs') || !statSync(join(dir, name)).isFile()) continue;
    if (!known.includes(name)) {
      const file = join(shownDir ?? dir, name);
      throw errors.MAIL_TEMPLATE_INVALID({
        message: `${file}: not a mail template name; the templates are ${known.join(', ')}.`,
        details: { file },
      });
    }
    names.add(name);
  }
  return names;
}

function compile(handlebars: typeof Handlebars, path: string, shown: string, part: MailPart): Render {
  if (!existsSync(path)) {
    throw errors.MAIL_TEMPLATE_INVALID({ message: `${shown}: file not found.`, details: { file: shown } });
  }
  // Strict: a variable the mail does not have is an error, not an empty string in a sent mail.
  const template = handlebars.compile<MailVariables>(readFileSync(path, 'utf8'), {
    strict: true,
    noEscape: part !== 'html',
  });
  try {
    // Handlebars compiles on first use: rendering once now surfaces syntax errors and unknown variables.
    template(SAMPLE);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw errors.MAIL_TEMPLATE_INVALID({
      message: `${shown}: ${reason}`,
      details: { file: shown },
    });
  }
  return (variables) => template(variables);
}

/** A subject is one header line: line breaks a template leaves (a trailing newline) become spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
