// Handlebars templates under templates/, compiled once per process. Helpers are few and pure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));

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
