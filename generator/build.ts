// svc build: spec → generated/. Skips all work when the cache proves nothing changed; otherwise loads the
// spec, generates every file in memory and writes only the files whose bytes changed (or, with check,
// writes nothing and reports what is stale).
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SpecIR } from '../spec/ir.js';
import { cachedOutputs, recordBuild, type CacheScope } from './build-cache.js';
import type { GeneratedFile } from './generate.js';
import { TS_PARSER } from './format.js';
import { compareFiles, unexpectedFiles, writeFiles, type FileReport } from './output-files.js';
import { defaultCatalogFile, packageRoot, specLoader } from './spec-source.js';

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

  // A large spec makes megabytes of code to format: start the format worker now, so it loads prettier on
  // the other core while this one loads the spec.
  const { FormatPool } = await import('./format-pool.js');
  const specBytes = await stat(specFile).then(
    (info) => info.size,
    () => 0,
  );
  const pool = specBytes >= LARGE_SPEC_BYTES ? new FormatPool(TS_PARSER) : undefined;
  let ir: SpecIR;
  let generated: GeneratedFile[];
  try {
    ir = await (await specLoader()).loadSpec(specFile, { env: scope.env });
    const { generateFiles } = await import('./generate.js');
    generated = await generateFiles({
      ir,
      outDir,
      source: posix(relative(projectDir, specFile)),
      runtimeImport: scope.runtimeImport,
      ...(pool ? { pool } : {}),
    });
  } finally {
    await pool?.close();
  }
  const files = options.check ? await compareFiles(generated) : await writeFiles(generated);
  if (!options.check) await recordBuild(scope, inputFiles(ir, specFile), generated);
  return finish(
    files,
    outDir,
    generated.map((file) => file.path),
    false,
    started,
  );
}

/** Compiles svckit's own spec/errors.yaml into generated/modules/errors.ts (relative runtime imports). */
export async function buildModules(options: { check?: boolean } = {}): Promise<BuildResult> {
  const started = performance.now();
  const root = packageRoot();
  const catalogFile = defaultCatalogFile();
  const outDir = join(root, 'generated', 'modules');
  const scope: CacheScope = {
    projectDir: root,
    specFile: catalogFile,
    outDir,
    runtimeImport: '../../runtime',
    env: {},
  };
  if (!options.check) {
    const outputs = await cachedOutputs(scope);
    if (outputs)
      return finish(
        outputs.map((path) => ({ path, status: 'unchanged' })),
        outDir,
        outputs,
        true,
        started,
      );
  }
  const errors = await (await specLoader()).loadCatalog(catalogFile);
  const { generateCatalogFiles } = await import('./generate.js');
  const generated = await generateCatalogFiles({
    errors,
    outDir,
    source: posix(relative(root, catalogFile)),
    runtimeImport: scope.runtimeImport,
  });
  const files = options.check ? await compareFiles(generated) : await writeFiles(generated);
  if (!options.check) await recordBuild(scope, [catalogFile], generated);
  return finish(
    files,
    outDir,
    generated.map((file) => file.path),
    false,
    started,
  );
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

/** Every file the IR came from (the spec and anything it includes) plus the catalog. */
function inputFiles(ir: SpecIR, specFile: string): string[] {
  const files = new Set([specFile, ir.file, defaultCatalogFile()]);
  for (const node of [...ir.resources, ...ir.routes, ...ir.errors]) if (node.loc) files.add(node.loc.file);
  return [...files];
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

export type { GeneratedFile };
