// Type-checks in-memory files under the strictest options a user of the generated client might have, with
// Node's types or with the DOM lib. Returns diagnostics as `file:line TSxxxx: message`.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** `dir` is where the files pretend to live (imports between them resolve there); it ends with '/'. */
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
  const host = ts.createCompilerHost(options);
  const inMemory = new Map(Object.entries(files).map(([name, text]) => [`${dir}${name}`, text]));
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => inMemory.get(name) ?? readFile(name);
  host.fileExists = (name) => inMemory.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, version, onError) => {
    const text = inMemory.get(name);
    return text === undefined
      ? getSourceFile(name, version, onError)
      : ts.createSourceFile(name, text, version);
  };
  const program = ts.createProgram([...inMemory.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.slice(dir.length)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : '';
    return `${where} TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}
