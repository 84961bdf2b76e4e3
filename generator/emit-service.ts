// service.ts: the service the spec declares, bound to this build's artifacts (settings, route definitions,
// the API description and the agent tools), so the app's entry passes only its handlers.
import type { SpecIR } from '../shared/ir.js';
import { renderTemplate } from './templates.js';

export interface EmitServiceInput {
  ir: SpecIR;
  header: string;
  /** Module that exports composeService/startService ('svckit/service'). */
  serviceImport: string;
  /** Module that exports App and Served ('svckit/core'). */
  coreImport: string;
  /** The spec file name shown in comments, e.g. 'svc.config.yaml'. */
  source: string;
}

export function emitService({ ir, header, serviceImport, coreImport, source }: EmitServiceInput): string {
  const modules = ir.moduleSettings;
  const enabled = Object.keys(modules);
  return renderTemplate('generated/service.ts.hbs', {
    header,
    serviceImport,
    coreImport,
    source,
    // Only what a module serves is imported: a service without MCP does not load its tool list.
    openapi: modules.edge?.openapi !== undefined,
    mcpTools: modules.mcp !== undefined,
    modules: enabled.length === 0 ? 'none yet' : enabled.join(', '),
  });
}
