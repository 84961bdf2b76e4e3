// errors.ts: the catalog as data plus one typed constructor per code.
import type { ErrorIR } from '../shared/ir.js';
import { renderTemplate } from './templates.js';

export interface EmitErrorsInput {
  errors: readonly ErrorIR[];
  header: string;
  /** Where HttpError and BootError come from: 'svckit' in applications, a relative path inside svckit. */
  runtimeImport: string;
  /** Named in the catalog's doc comment, e.g. 'svc.config.yaml'. */
  source: string;
}

export function emitErrors(input: EmitErrorsInput): string {
  const errors = input.errors.map((error) => ({
    code: error.code,
    boot: error.status === 'boot',
    status: error.status,
    statusLiteral: error.status === 'boot' ? "'boot'" : String(error.status),
    statuses: error.statuses?.join(', '),
    statusUnion: [error.status, ...(error.statuses ?? [])].join(' | '),
    message: error.message,
    module: error.module,
    description: error.description?.replace(/\*\//g, '*\\/'),
    hint: error.hint,
  }));
  return renderTemplate('generated/errors.ts.hbs', {
    header: input.header,
    runtimeImport: input.runtimeImport,
    source: input.source,
    hasHttp: errors.some((error) => !error.boot),
    hasBoot: errors.some((error) => error.boot),
    firstCode: errors[0]?.code ?? 'SOME_CODE',
    errors,
  });
}
