// config.ts: the spec's runtime settings with their `${VAR}` references kept, and loadConfig() resolving
// them at start (runtime/config), so one build serves every environment.
import type { SpecIR } from '../shared/ir.js';
import { toJsLiteral } from './js-literal.js';
import { renderTemplate } from './templates.js';

export interface EmitConfigInput {
  ir: SpecIR;
  header: string;
  /** Module that exports resolveSvcConfig ('svckit'). */
  runtimeImport: string;
  /** The spec file name shown in messages, e.g. 'svc.config.yaml'. */
  source: string;
}

export function emitConfig({ ir, header, runtimeImport, source }: EmitConfigInput): string {
  return renderTemplate('generated/config.ts.hbs', {
    header,
    runtimeImport,
    source,
    sourceLiteral: toJsLiteral(source),
    name: toJsLiteral(ir.name),
    version: toJsLiteral(ir.version),
    config: toJsLiteral(ir.config),
  });
}
