// openapi.d.ts: the `paths`, `components` and `operations` types of the OpenAPI document, printed by
// openapi-typescript, so openapi-fetch and other OpenAPI tooling get types from the spec svc serves. It reads
// the very text written to openapi.json, so the two files can never describe different documents.
import { pathToFileURL } from 'node:url';

export interface EmitOpenApiTypesInput {
  /** The bytes of generated/openapi.json. */
  openApiJson: string;
  header: string;
  /** Absolute output folder: where openapi-typescript pretends the document lives (its messages name it). */
  outDir: string;
}

export async function emitOpenApiTypes({
  openApiJson,
  header,
  outDir,
}: EmitOpenApiTypesInput): Promise<string> {
  // Loaded here, not at the top: it brings the TypeScript compiler and redocly, which only a build that
  // generates needs.
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const nodes = await openapiTS(openApiJson, {
    silent: true,
    cwd: pathToFileURL(`${outDir}/`),
    // `{ type: object }` without properties (an error's `details`) may hold anything; by default the
    // library would type it as an object that can hold nothing (Record<string, never>).
    emptyObjectsUnknown: true,
  }).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`openapi-typescript could not read the generated openapi.json: ${reason}`, {
      cause: error,
    });
  });
  return `${header}\n\n${astToString(nodes)}`;
}
