// The generator's public API: `svc build` (build), svckit's own module build (buildModules), and the
// in-memory pipeline for tools that want the bytes without writing them (generateFiles, openApiText). Heavy
// modules (ajv, prettier, json-schema-to-typescript) load only when something is generated, so a no-op
// build stays fast.
import { basename, dirname, join } from 'node:path';
import type { SpecIR } from '../shared/ir.js';
import type { GeneratedFile, GenerateOptions } from './generate.js';

export { build, buildModules, type BuildOptions, type BuildResult } from './build.js';
export type { FileReport, FileStatus } from './output-files.js';
export type { GeneratedFile, GenerateOptions };

/** Every file `svc build` would write for an IR, formatted, without touching the disk. */
export async function generateFiles(options: GenerateOptions): Promise<GeneratedFile[]> {
  return (await import('./generate.js')).generateFiles(options);
}

/**
 * The OpenAPI document of a spec, byte for byte as `svc build` writes generated/openapi.json
 * (`svc generate:docs`). `path` only picks the prettier config; default: openapi.json next to the spec.
 */
export async function openApiText(ir: SpecIR, options: { path?: string } = {}): Promise<string> {
  const [{ emitOpenApi }, { formatJsonDocument }, { codeHeader }] = await Promise.all([
    import('./emit-openapi.js'),
    import('./format.js'),
    import('./header.js'),
  ]);
  const document = emitOpenApi(ir, { header: codeHeader(basename(ir.file)) });
  return formatJsonDocument(options.path ?? join(dirname(ir.file), 'openapi.json'), document);
}
