// svc build: spec → generated/. Skips all work when the cache proves nothing changed; otherwise loads the
// spec, generates every file in memory and writes only the files whose bytes changed (or, with check,
// writes nothing and reports what is stale).
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { SpecIR } from '../shared/ir.js';
import { cachedOutputs, recordBuild, type CacheScope } from './build-cache.js';
import type { GeneratedFile } from './generate.js';
import type { FormatCache } from './format-cache.js';
import type { FormatPool } from './format-pool.js';
import { TS_PARSER } from './format.js';
import { compareFiles, unexpectedFiles, writeFiles, type FileReport } from './output-files.js';
import { packageRoot } from '../shared/package-root.js';
import { defaultCatalogFile, specLoader } from './spec-source.js';

export interface BuildOptions {
  specFile: string;
  /** Default: `generated/` next to the spec file. */
  outDir?: string;
  /** Write nothing; report every missing, different or unexpected file as 'stale'. Never trusts the cache. */
  check?: boolean;
  /** Environment for `${VAR}` references resolved at build time; default process.env. */
  env?: Record<string, string | undefined>;
  /** Where generated code imports the runtime from; default 'svckit' (see runtime-imports.ts). */
  runtimeImport?: string;
  /**
   * The spec as loading `specFile` now gives it, when the caller has just loaded it (`svc make:*` loads its
   * edit before writing it): used instead of loading the file a second time.
   */
  ir?: SpecIR;
  /**
   * A format worker the caller started early (`svc make:*` starts one as it begins, so that prettier and
   * openapi-typescript load while it works; see FormatPool). The caller closes it.
   */
  pool?: FormatPool;
}

export interface BuildResult {
  /** Every generated file, then files in the output folder this build did not produce (status 'stale'). */
  files: FileReport[];
  /** true when the cache proved the outputs current and nothing was generated. */
  cached: boolean;
  ms: number;
}

/** A spec this large (about 60 routes) generates enough code for a second formatting thread to pay off. */
const LARGE_SPEC_BYTES = 40_000;

export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const specFile = resolve(options.specFile);
  const projectDir = dirname(specFile);
  const outDir = resolve(options.outDir ?? join(projectDir, 'generated'));
  const scope: CacheScope = {
    projectDir,
    specFile,
    outDir,
    runtimeImport: options.runtimeImport ?? 'svckit',
    env: options.env ?? process.env,
  };

  if (!options.check) {
    const outputs = await cachedOutputs(scope);
    if (outputs) {
      const files: FileReport[] = outputs.map((path) => ({ path, status: 'unchanged' }));
      return finish(files, outDir, outputs, true, started);
    }
  }

  // A large spec makes megabytes of code to format: start the format worker now, so it loads prettier (and
  // openapi-typescript) on the other core while this one loads the spec.
  const { FormatPool } = await import('./format-pool.js');
  const specBytes = await stat(specFile).then(
    (info) => info.size,
    () => 0,
  );
  const ownPool =
    options.pool === undefined && specBytes >= LARGE_SPEC_BYTES
      ? new FormatPool(TS_PARSER, true, { openApiTypes: true })
      : undefined;
  const pool = options.pool ?? ownPool;
  let ir: SpecIR;
  let generated: GeneratedFile[];
  let formatCache: FormatCache;
  try {
    ir = options.ir ?? (await (await specLoader()).loadSpec(specFile, { env: scope.env }));
    const [{ generateFiles }, { FormatCache }] = await Promise.all([
      import('./generate.js'),
      import('./format-cache.js'),
    ]);
    formatCache = await FormatCache.open(projectDir, { record: !options.check });
    generated = await generateFiles({
      ir,
      outDir,
      source: posix(relative(projectDir, specFile)),
      runtimeImport: scope.runtimeImport,
      ...(pool ? { pool } : {}),
      formatCache,
    });
  } finally {
    await ownPool?.close();
  }
  const files = options.check ? await compareFiles(generated) : await writeFiles(generated);
  if (!options.check) {
    await formatCache.save();
    await recordBuild(scope, inputFiles(ir, specFile), generated, ir.sources?.directories ?? []);
  }
  return finish(
    files,
    outDir,
    generated.map((file) => file.path),
    false,
    started,
  );
}

/**
 * svckit's own build: spec/errors.yaml into generated/modules/errors.ts, and every module spec
 * (spec/modules/<module>.yaml) into generated/modules/<module>/ (types.ts, validators.ts, serializers.ts,
 * routes.ts), all with relative runtime imports. Each part has its own cache entry; check mode also reports files in those
 * folders the build does not produce, and the files of a generated/modules/<name>/ whose spec is gone.
 */
export async function buildModules(
  options: {
    check?: boolean;
    /** The package folder holding spec/ and generated/modules/; default this svckit. For tests. */
    root?: string;
  } = {},
): Promise<BuildResult> {
  const started = performance.now();
  const root = options.root ?? packageRoot();
  const catalogFile = join(root, 'spec', 'errors.yaml');
  const modulesDir = join(root, 'generated', 'modules');
  const parts: ModulePart[] = [
    {
      specFile: catalogFile,
      outDir: modulesDir,
      runtimeImport: '../../runtime',
      inputs: [catalogFile],
      generate: async () => {
        const errors = await (await specLoader()).loadCatalog(catalogFile);
        const { generateCatalogFiles } = await import('./generate.js');
        return generateCatalogFiles({
          errors,
          outDir: modulesDir,
          source: posix(relative(root, catalogFile)),
          runtimeImport: '../../runtime',
        });
      },
    },
    ...(await moduleSpecFiles(root)).map((specFile): ModulePart => {
      const outDir = join(modulesDir, basename(specFile, '.yaml'));
      const runtimeImport = '../../../runtime';
      return {
        specFile,
        outDir,
        runtimeImport,
        inputs: [specFile, catalogFile],
        generate: async () => {
          const ir = await (await specLoader()).loadModuleSpec(specFile, { env: {}, catalogFile });
          const { generateModuleFiles } = await import('./generate.js');
          return generateModuleFiles({ ir, outDir, source: posix(relative(root, specFile)), runtimeImport });
        },
      };
    }),
  ];
  // One after the other: each part records itself in the same cache file (read, change, write).
  const results: BuildResult[] = [];
  for (const part of parts) results.push(await buildModulePart(root, part, options.check === true));
  const files = results.flatMap((result) => result.files);
  // A folder of generated/modules/ that no module spec produces any more (a renamed or removed module).
  const known = new Set(parts.map((part) => part.outDir));
  for (const folder of await subfolders(modulesDir)) {
    if (known.has(folder)) continue;
    for (const path of await unexpectedFiles(folder, [])) files.push({ path, status: 'stale' });
  }
  return { files, cached: results.every((result) => result.cached), ms: performance.now() - started };
}

interface ModulePart {
  specFile: string;
  outDir: string;
  runtimeImport: string;
  /** Files whose change must rebuild the part. */
  inputs: string[];
  generate: () => Promise<GeneratedFile[]>;
}

async function buildModulePart(root: string, part: ModulePart, check: boolean): Promise<BuildResult> {
  const started = performance.now();
  const scope: CacheScope = {
    projectDir: root,
    specFile: part.specFile,
    outDir: part.outDir,
    runtimeImport: part.runtimeImport,
    env: {},
  };
  if (!check) {
    const outputs = await cachedOutputs(scope);
    if (outputs)
      return finish(
        outputs.map((path) => ({ path, status: 'unchanged' })),
        part.outDir,
        outputs,
        true,
        started,
      );
  }
  const generated = await part.generate();
  const files = check ? await compareFiles(generated) : await writeFiles(generated);
  if (!check) await recordBuild(scope, part.inputs, generated);
  return finish(
    files,
    part.outDir,
    generated.map((file) => file.path),
    false,
    started,
  );
}

/** spec/modules/*.yaml of this package, sorted. */
async function moduleSpecFiles(root: string): Promise<string[]> {
  const dir = join(root, 'spec', 'modules');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(dir, name));
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name))
    .sort();
}

async function finish(
  files: FileReport[],
  outDir: string,
  expected: readonly string[],
  cached: boolean,
  started: number,
): Promise<BuildResult> {
  const extras = await unexpectedFiles(outDir, expected);
  const reports = [...files, ...extras.map((path): FileReport => ({ path, status: 'stale' }))];
  return { files: reports, cached, ms: performance.now() - started };
}

/** Every file the IR came from (the spec and anything it includes, the enabled modules' specs) plus the catalog. */
function inputFiles(ir: SpecIR, specFile: string): string[] {
  const files = new Set([specFile, ir.file, ...(ir.sources?.files ?? []), defaultCatalogFile()]);
  for (const node of [...ir.resources, ...ir.routes, ...ir.errors]) if (node.loc) files.add(node.loc.file);
  for (const module of ir.modules ?? []) files.add(module.file);
  return [...files];
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

export type { GeneratedFile };
