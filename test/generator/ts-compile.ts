// Type-checks generated code in this process with the TypeScript API, as tsc would, and returns the
// diagnostics of the files under test. Two things keep it fast across the many checks of the generator suite:
// files read from disk (the libs, @types/node, svckit's runtime sources) are parsed once per worker and shared
// between programs through one document registry, keyed by their content; and only the files under test are
// type-checked, because the runtime they import is type-checked by the repository's own tsconfig.
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from './project.js';

const registry = ts.createDocumentRegistry();

/**
 * A compiler host whose files come from `inMemory` (by absolute path) or from disk; disk files are parsed
 * once per content and options, shared by every program of this worker.
 */
function sharedHost(options: ts.CompilerOptions, inMemory = new Map<string, string>()): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => inMemory.get(name) ?? readFile(name);
  host.fileExists = (name) => inMemory.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, languageVersionOrOptions, onError) => {
    const text = inMemory.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, languageVersionOrOptions);
    const onDisk = readFile(name);
    if (onDisk === undefined) {
      onError?.(`cannot read ${name}`);
      return undefined;
    }
    const version = createHash('sha1').update(onDisk).digest('hex');
    return registry.acquireDocument(
      name,
      options,
      ts.ScriptSnapshot.fromString(onDisk),
      version,
      undefined,
      languageVersionOrOptions,
    );
  };
  return host;
}

/** The option, syntax and type diagnostics of `judged` files (with the program's global ones), as tsc finds them. */
function diagnosticsOf(program: ts.Program, judged: (file: ts.SourceFile) => boolean): ts.Diagnostic[] {
  const diagnostics: ts.Diagnostic[] = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ];
  for (const file of program.getSourceFiles()) {
    if (!judged(file)) continue;
    diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
  }
  return diagnostics;
}

/**
 * Type-checks in-memory files under the strictest options a user of the generated client might have, with
 * Node's types or with the DOM lib. `dir` is where the files pretend to live (imports between them resolve
 * there); it ends with '/'. The files under `dir` are judged, not what they import from elsewhere. Returns
 * diagnostics as `file:line TSxxxx: message`.
 */
export function compileStrict(
  dir: string,
  files: Record<string, string>,
  environment: 'node' | 'dom',
): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noImplicitReturns: true,
    noPropertyAccessFromIndexSignature: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    lib: environment === 'dom' ? ['lib.es2022.d.ts', 'lib.dom.d.ts'] : ['lib.es2022.d.ts'],
    types: environment === 'dom' ? [] : ['node'],
    typeRoots: [fileURLToPath(new URL('../../node_modules/@types', import.meta.url))],
  };
  const inMemory = new Map(Object.entries(files).map(([name, text]) => [`${dir}${name}`, text]));
  const program = ts.createProgram([...inMemory.keys()], options, sharedHost(options, inMemory));
  const judged = (file: ts.SourceFile) => file.fileName.startsWith(dir) && !file.isDeclarationFile;
  return diagnosticsOf(program, judged).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.slice(dir.length)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : '';
    return `${where} TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

/**
 * Type-checks the project `tsconfig` describes, as `tsc -p` would, judging the files `judged` accepts (by path
 * relative to the project). Returns tsc's lines for them (`app.ts(3,5): error TS2322: ...`); none when clean.
 */
export function typeCheckProject(tsconfig: string, judged: (relativePath: string) => boolean): string[] {
  const projectDir = dirname(tsconfig);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${tsconfig}`);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    host: sharedHost(parsed.options),
    configFileParsingDiagnostics: parsed.errors,
  });
  const diagnostics = [
    ...parsed.errors,
    ...diagnosticsOf(program, (file) => judged(relative(projectDir, file.fileName))),
  ];
  const formatHost: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => projectDir,
    getNewLine: () => '\n',
  };
  return diagnostics.map((diagnostic) => ts.formatDiagnostics([diagnostic], formatHost).trimEnd());
}

/**
 * The tsconfig of a generated app under test: svckit's sources through the `svckit-source` condition, the
 * repository's @types, strict, no emit; `compilerOptions` adds to (or overrides) those options.
 */
export function appTsconfig(
  include: readonly string[],
  compilerOptions: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      customConditions: ['svckit-source'],
      lib: ['ES2023', 'DOM'],
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      ...compilerOptions,
    },
    include,
  });
}
