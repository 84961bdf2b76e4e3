// The files spec (test/fixtures/spec/files.svc.yaml: upload and raw bodies, downloads, server-sent events,
// a stream beside a JSON success) as the loader produces it, for the generator tests of those features.
import { fileURLToPath } from 'node:url';
import { loadSpec, type SpecIR } from 'svckit/spec';

export const FILES_SPEC = fileURLToPath(new URL('../fixtures/spec/files.svc.yaml', import.meta.url));

export function filesIr(): Promise<SpecIR> {
  return loadSpec(FILES_SPEC, { env: {} });
}
