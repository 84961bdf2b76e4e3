// IR → the formatted bytes of every generated file, in memory. build() decides what reaches the disk.
import { join } from 'node:path';
import type { ErrorIR, SpecIR } from '../shared/ir.js';
import { emitClient } from './emit-client.js';
import { emitConfig } from './emit-config.js';
import { emitErrors } from './emit-errors.js';
import { emitMcpTools } from './emit-mcp-tools.js';
import { emitOpenApi } from './emit-openapi.js';
import { emitOpenApiTypes } from './emit-openapi-types.js';
import { emitRoutes } from './emit-routes.js';
import { emitSerializers } from './emit-serializers.js';
import { emitService } from './emit-service.js';
import { emitTypes } from './emit-types.js';
import { emitValidators } from './emit-validators.js';
import { formatJsonDocument, formatOptions, formatWith, TS_PARSER } from './format.js';
import type { FormatCache } from './format-cache.js';
import { FormatPool, WORKER_THRESHOLD_BYTES } from './format-pool.js';
import type { ParsedProgram } from './statement-chunks.js';
import { codeHeader } from './header.js';
import { runtimeImports } from './runtime-imports.js';
import { apiSurface } from './modules.js';
import { assertGeneratableNames } from './type-plan.js';

export interface GeneratedFile {
  /** Absolute path. */
  path: string;
  content: string;
}

export interface GenerateOptions {
  ir: SpecIR;
  /** Absolute output folder. */
  outDir: string;
  /** The spec file as named in headers and messages, relative to the project ('svc.config.yaml'). */
  source: string;
  /** 'svckit', or a relative path from outDir to svckit's runtime/ folder (see runtime-imports.ts). */
  runtimeImport: string;
  /** A format worker the caller started early (build() does for large specs) and closes itself. */
  pool?: FormatPool;
  /** What the last build formatted, so only what changed is formatted again (build() passes its project's). */
  formatCache?: FormatCache;
}

/** The files of an application, in the order BuildResult lists them. */
const APP_FILES = [
  'types.ts',
  'validators.js',
  'validators.d.ts',
  'serializers.js',
  'serializers.d.ts',
  'errors.ts',
  'routes.ts',
  'config.ts',
  'service.ts',
  'client.ts',
  'openapi.json',
  'openapi.d.ts',
  'mcp-tools.json',
] as const;

/** Every file `svc build` writes for an application spec. */
export async function generateFiles(options: GenerateOptions): Promise<GeneratedFile[]> {
  const { ir, source, outDir } = options;
  assertGeneratableNames(apiSurface(ir));
  const header = codeHeader(source);
  const imports = runtimeImports(options.runtimeImport);
  const path = (name: string) => join(outDir, name);
  const [prettierOptions] = await Promise.all([
    Promise.all(APP_FILES.map(async (name) => [name, await formatOptions(path(name))] as const)).then(
      (entries) => new Map(entries),
    ),
    options.formatCache?.read(APP_FILES.map(path)),
  ]);

  // openapi.json first: openapi.d.ts is printed from its bytes, so a worker the caller started converts it
  // while this thread generates the rest.
  const openApiJson = await formatJsonDocument(path('openapi.json'), emitOpenApi(ir, { header }));
  // A worker that converts also formats the file (the longest one of a large API) as soon as it is printed.
  let openApiTypesOutline: ParsedProgram | undefined;
  const openApiTypes = (pool: FormatPool) => {
    // With a format cache the file goes through it instead: most of it was formatted by the last build.
    const format =
      pool.convertsOpenApi && !options.formatCache ? prettierOptions.get('openapi.d.ts') : undefined;
    // The cache parses the file to reuse its members: the worker that printed it parses it there.
    const parser: unknown = prettierOptions.get('openapi.d.ts')?.parser;
    const outline =
      options.formatCache && (parser === 'babel' || parser === 'babel-ts')
        ? {
            parser: parser as 'babel' | 'babel-ts',
            onOutline: (parsed: ParsedProgram) => void (openApiTypesOutline = parsed),
          }
        : undefined;
    const text = emitOpenApiTypes({
      openApiJson,
      header,
      outDir,
      pool,
      ...(format ? { format } : {}),
      ...(outline ? { outline } : {}),
    });
    // Awaited once the files are queued; should generating throw first, the conversion is just abandoned.
    text.catch(() => undefined);
    return { text, formatted: format !== undefined };
  };
  let openApiTypesFile = options.pool ? openApiTypes(options.pool) : undefined;
  // types.ts is compiled in a worker the caller started, after openapi.d.ts, while this thread goes on.
  let typesText = options.pool ? emitTypes({ ir, header, pool: options.pool }) : undefined;
  typesText?.catch(() => undefined);

  // Synchronous emitters next, largest first, so the worker can format them while types.ts is compiled.
  const validators = emitValidators({
    ir,
    header,
    validationRuntimeImport: imports.validationRuntime,
    typesImport: imports.types,
  });
  const serializers = emitSerializers({
    ir,
    header,
    validationRuntimeImport: imports.validationRuntime,
    typesImport: imports.types,
  });
  const code = new Map<string, string>([
    ['validators.js', validators.js],
    ['serializers.js', serializers.js],
    ['client.ts', emitClient(ir, { header })],
    ['routes.ts', emitRoutes({ ir, header, runtimeImport: options.runtimeImport, source })],
    ['errors.ts', emitErrors({ errors: ir.errors, header, runtimeImport: imports.errors, source })],
    ['config.ts', emitConfig({ ir, header, runtimeImport: imports.config, source })],
    [
      'service.ts',
      emitService({ ir, header, serviceImport: imports.service, coreImport: imports.main, source }),
    ],
    ['validators.d.ts', validators.dts],
    ['serializers.d.ts', serializers.dts],
  ]);
  const size = [...code.values()].reduce((sum, text) => sum + text.length, 0);
  const pool =
    options.pool ?? new FormatPool(TS_PARSER, size >= WORKER_THRESHOLD_BYTES, { openApiTypes: true });
  openApiTypesFile ??= openApiTypes(pool);
  const openApiTypesDone = openApiTypesFile;
  try {
    const formatted = new Map<string, Promise<string>>();
    const submit = (name: string, text: string, parsed?: ParsedProgram) => {
      const fileOptions = prettierOptions.get(name as (typeof APP_FILES)[number]) ?? {};
      const queue = (source: string) => pool.submit(source, fileOptions);
      const cache = options.formatCache;
      formatted.set(name, cache ? cache.format(path(name), text, fileOptions, queue, parsed) : queue(text));
    };
    // Noting a file's chunks parses it on this thread: yield between files, so that a worker that finished
    // (the conversion of openapi.d.ts) gets its next file now, not once every file is noted.
    for (const [name, text] of code) {
      submit(name, text);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // JSON needs no prettier (json-format.ts prints the same bytes), so it never waits in the queue.
    formatted.set('openapi.json', Promise.resolve(openApiJson));
    formatted.set('mcp-tools.json', formatJsonDocument(path('mcp-tools.json'), emitMcpTools(ir, { header })));
    // Each TypeScript file is queued once it exists; this thread formats until the last one is done.
    await pool.drain(
      formatWith,
      Promise.all([
        (typesText ??= emitTypes({ ir, header, pool })).then((text) => submit('types.ts', text)),
        openApiTypesDone.text.then((text) =>
          openApiTypesDone.formatted
            ? formatted.set('openapi.d.ts', Promise.resolve(text))
            : submit('openapi.d.ts', text, openApiTypesOutline),
        ),
      ]),
    );
    return Promise.all(
      APP_FILES.map(async (name) => ({ path: path(name), content: await formatted.get(name)! })),
    );
  } finally {
    if (!options.pool) await pool.close();
  }
}

/** generated/modules/errors.ts of svckit itself: the built-in catalog with relative runtime imports. */
export async function generateCatalogFiles(options: {
  errors: readonly ErrorIR[];
  outDir: string;
  source: string;
  runtimeImport: string;
}): Promise<GeneratedFile[]> {
  const imports = runtimeImports(options.runtimeImport);
  const header = codeHeader(options.source);
  const errors = emitErrors({
    errors: options.errors,
    header,
    runtimeImport: imports.errors,
    source: options.source,
  });
  const path = join(options.outDir, 'errors.ts');
  return [{ path, content: await formatWith(errors, await formatOptions(path)) }];
}

/** The files of one built-in module in svckit's own generated/modules/<module>/. */
export const MODULE_FILES = ['types.ts', 'validators.ts', 'serializers.ts', 'routes.ts'] as const;

/**
 * generated/modules/<module>/ of svckit itself, from spec/modules/<module>.yaml: types.ts, validators.ts,
 * serializers.ts and routes.ts (Handlers, RouteId, guardedMetaKeys, routeDefinitions, routes()), importing
 * the runtime by relative path. Validators and serializers are TypeScript here (see EmittedValidators.ts) so
 * that the package's tsc build carries them into dist/ beside the rest; the module's errors live in the
 * catalog (errors.ts).
 */
export async function generateModuleFiles(options: {
  ir: SpecIR;
  outDir: string;
  source: string;
  runtimeImport: string;
}): Promise<GeneratedFile[]> {
  const { ir, outDir, source } = options;
  assertGeneratableNames(ir);
  const imports = runtimeImports(options.runtimeImport);
  const header = codeHeader(source);
  const validators = emitValidators({
    ir,
    header,
    validationRuntimeImport: imports.validationRuntime,
    typesImport: imports.types,
  });
  const serializers = emitSerializers({
    ir,
    header,
    validationRuntimeImport: imports.validationRuntime,
    typesImport: imports.types,
  });
  const code: Record<(typeof MODULE_FILES)[number], string> = {
    'types.ts': await emitTypes({ ir, header }),
    'validators.ts': validators.ts,
    'serializers.ts': serializers.ts,
    'routes.ts': emitRoutes({ ir, header, runtimeImport: options.runtimeImport, source }),
  };
  return Promise.all(
    MODULE_FILES.map(async (name) => {
      const path = join(outDir, name);
      return { path, content: await formatWith(code[name], await formatOptions(path)) };
    }),
  );
}
