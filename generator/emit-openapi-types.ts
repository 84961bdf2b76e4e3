// openapi.d.ts: the `paths`, `components` and `operations` types of the OpenAPI document, printed by
// openapi-typescript, so openapi-fetch and other OpenAPI tooling get types from the spec svc serves. It reads
// the very text written to openapi.json, so the two files can never describe different documents.
import { pathToFileURL } from 'node:url';
import type { Options } from 'prettier';
import { formatWith } from './format.js';
import { WorkerGoneError, type FormatPool } from './format-pool.js';

export interface EmitOpenApiTypesInput {
  /** The bytes of generated/openapi.json. */
  openApiJson: string;
  header: string;
  /** Absolute output folder: where openapi-typescript pretends the document lives (its messages name it). */
  outDir: string;
  /** A format worker with openapi-typescript loaded (FormatPool `openApiTypes`): it converts there. */
  pool?: FormatPool;
  /**
   * The file's prettier options, to answer the file formatted: the worker formats it right after converting
   * (the longest single file of a large API, so it should not wait in the queue). Else it is answered as printed.
   */
  format?: Options;
}

/** openapi-typescript's options as plain data a worker can receive: `cwd` is the URL's text. */
export interface OpenApiTsOptions {
  silent: boolean;
  cwd: string;
  emptyObjectsUnknown: boolean;
}

export function openApiTsOptions(outDir: string): OpenApiTsOptions {
  return {
    silent: true,
    cwd: pathToFileURL(`${outDir}/`).href,
    // `{ type: object }` without properties (an error's `details`) may hold anything; by default the
    // library would type it as an object that can hold nothing (Record<string, never>).
    emptyObjectsUnknown: true,
  };
}

export async function emitOpenApiTypes({
  openApiJson,
  header,
  outDir,
  pool,
  format,
}: EmitOpenApiTypesInput): Promise<string> {
  const job = { openApiJson, options: openApiTsOptions(outDir), prefix: `${header}\n\n`, format };
  return (
    pool?.convertsOpenApi
      ? pool.openApiTypes(job).catch((error: unknown) => {
          if (error instanceof WorkerGoneError) return convertHere(job);
          throw error;
        })
      : convertHere(job)
  ).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`openapi-typescript could not read the generated openapi.json: ${reason}`, {
      cause: error,
    });
  });
}

/**
 * The two functions of openapi-typescript the build calls. Declared here and imported by a name the compiler
 * does not follow: its own declarations bring several megabytes of redocly's types into every type-check.
 */
interface OpenApiTypeScript {
  default(schema: string, options: Omit<OpenApiTsOptions, 'cwd'> & { cwd: URL }): Promise<unknown>;
  astToString(ast: unknown): string;
}
const OPENAPI_TYPESCRIPT: string = 'openapi-typescript';

/** What a conversion is given: a worker runs the same calls as convertHere. */
export interface OpenApiTypesJob {
  openApiJson: string;
  options: OpenApiTsOptions;
  /** What comes before the printed types: the header. */
  prefix: string;
  format: Options | undefined;
}

/** The conversion on this thread. */
async function convertHere({ openApiJson, options, prefix, format }: OpenApiTypesJob): Promise<string> {
  // Loaded here, not at the top: it brings the TypeScript compiler and redocly, which only a build that
  // generates needs.
  const { default: openapiTS, astToString } = (await import(OPENAPI_TYPESCRIPT)) as OpenApiTypeScript;
  const text = prefix + astToString(await openapiTS(openApiJson, { ...options, cwd: new URL(options.cwd) }));
  return format ? formatWith(text, format) : text;
}
