// Handlebars templates under templates/, compiled once per process. Helpers are few and pure.
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import Handlebars from 'handlebars';
import { packageRoot } from '../shared/package-root.js';

/** templates/ of the svckit package, found from its package.json so the compiled dist/generator/ finds it too. */
export const TEMPLATES_DIR = join(packageRoot(), 'templates') + sep;

const handlebars = Handlebars.create();
handlebars.registerHelper('json', (value: unknown) => JSON.stringify(value));

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders templates/<name> with the given data. Output is not yet formatted. */
export function renderTemplate(name: string, data: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = readFileSync(TEMPLATES_DIR + name, 'utf8');
    template = handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(data);
}
