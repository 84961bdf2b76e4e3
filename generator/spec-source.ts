// The one place the generator reaches the spec loader (spec/index.ts). Imported lazily: a no-op build that
// the cache answers never loads the YAML parser or ajv.
import type { ErrorIR, SpecIR } from '../shared/ir.js';

export interface SpecLoader {
  loadSpec(file: string, options?: { env?: Record<string, string | undefined> }): Promise<SpecIR>;
  loadModuleSpec(
    file: string,
    options?: { env?: Record<string, string | undefined>; catalogFile?: string },
  ): Promise<SpecIR>;
  loadCatalog(file?: string): Promise<ErrorIR[]>;
}

export async function specLoader(): Promise<SpecLoader> {
  return import('../spec/index.js');
}

export { defaultCatalogFile } from '../spec/loader/package-files.js';
