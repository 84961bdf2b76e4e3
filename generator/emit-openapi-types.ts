// openapi.d.ts: the `paths`, `components` and `operations` types of the OpenAPI document, printed by
// openapi-typescript, so openapi-fetch and other OpenAPI tooling get types from the spec svc serves. It reads
// the very text written to openapi.json, so the two files can never describe different documents.
import { pathToFileURL } from 'node:url';
import type { Options } from 'prettier';
import { formatWith } from './format.js';
import { WorkerGoneError, type FormatPool } from './format-pool.js';
import type { ParsedProgram } from './statement-chunks.js';

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
  /**
   * Asks the worker for an outline of the printed text, parsed with this prettier babel parser, passed to
   * `onOutline` (what the format cache needs of it, parsed on the other thread). Not called otherwise.
   */
  outline?: { parser: 'babel' | 'babel-ts'; onOutline(parsed: ParsedProgram): void };
}

/**
 * openapi-typescript's settings for its transform, as plain data a worker can receive: the defaults its own
 * entry applies, but for the two below. The build calls the transform directly on the parsed openapi.json:
 * the entry would first lint and bundle the document with redocly (most of the conversion's time), which a
 * document the build printed from a checked spec, with only local references, does not need; the printed
 * types are the same bytes.
 */
export interface OpenApiTsOptions {
  silent: boolean;
  /** The folder openapi.json is written to, as a URL's text. */
  cwd: string;
  emptyObjectsUnknown: boolean;
  additionalProperties: boolean;
  alphabetize: boolean;
  arrayLength: boolean;
  defaultNonNullable: boolean;
  enum: boolean;
  enumValues: boolean;
  conditionalEnums: boolean;
  dedupeEnums: boolean;
  excludeDeprecated: boolean;
  exportType: boolean;
  immutable: boolean;
  rootTypes: boolean;
  rootTypesNoSchemaPrefix: boolean;
  rootTypesKeepCasing: boolean;
  pathParamsAsTypes: boolean;
  propertiesRequiredByDefault: boolean;
  makePathsEnum: boolean;
  generatePathParams: boolean;
  readWriteMarkers: boolean;
}

export function openApiTsOptions(outDir: string): OpenApiTsOptions {
  return {
    silent: true,
    cwd: pathToFileURL(`${outDir}/`).href,
    // `{ type: object }` without properties (an error's `details`) may hold anything; by default the
    // library would type it as an object that can hold nothing (Record<string, never>).
    emptyObjectsUnknown: true,
    additionalProperties: false,
    alphabetize: false,
    arrayLength: false,
    defaultNonNullable: true,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    pathParamsAsTypes: false,
    propertiesRequiredByDefault: false,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
  };
}

export async function emitOpenApiTypes({
  openApiJson,
  header,
  outDir,
  pool,
  format,
  outline,
}: EmitOpenApiTypesInput): Promise<string> {
  const job: OpenApiTypesJob = {
    openApiJson,
    options: openApiTsOptions(outDir),
    prefix: `${header}\n\n`,
    format,
    ...(outline ? { outline: outline.parser } : {}),
  };
  return (
    pool?.convertsOpenApi
      ? pool.openApiTypes(job).then(
          (answer) => {
            if (answer.outline) outline?.onOutline(answer.outline);
            return answer.text;
          },
          (error: unknown) => {
            if (error instanceof WorkerGoneError) return convertHere(job);
            throw error;
          },
        )
      : convertHere(job)
  ).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`openapi-typescript could not read the generated openapi.json: ${reason}`, {
      cause: error,
    });
  });
}

/**
 * The functions of openapi-typescript the build calls. Declared here and imported by a name the compiler
 * does not follow: its own declarations bring several megabytes of redocly's types into every type-check.
 */
interface OpenApiTypeScript {
  transformSchema(schema: unknown, context: object): unknown;
  scanDiscriminators(schema: unknown, options: OpenApiTsOptions): unknown;
  resolveRef(schema: unknown, ref: string, options: { silent: boolean }): unknown;
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
  /** The babel parser to outline the printed text with (worker only). */
  outline?: 'babel' | 'babel-ts';
}

/** What the worker answers a conversion. */
export interface OpenApiTypesAnswer {
  text: string;
  outline?: ParsedProgram;
}

/** The conversion on this thread. */
async function convertHere({ openApiJson, options, prefix, format }: OpenApiTypesJob): Promise<string> {
  // Loaded here, not at the top: it brings the TypeScript compiler and redocly, which only a build that
  // generates needs.
  const library = (await import(OPENAPI_TYPESCRIPT)) as OpenApiTypeScript;
  const text = prefix + library.astToString(transformDocument(library, openApiJson, options));
  return format ? formatWith(text, format) : text;
}

/** What openapi-typescript's entry does after redocly: the transform, with the context it builds. */
function transformDocument(
  library: OpenApiTypeScript,
  openApiJson: string,
  options: OpenApiTsOptions,
): unknown {
  const schema: unknown = JSON.parse(openApiJson);
  return library.transformSchema(schema, {
    ...options,
    injectFooter: [],
    discriminators: library.scanDiscriminators(schema, options),
    resolve: (ref: string) => library.resolveRef(schema, ref, { silent: options.silent }),
  });
}
