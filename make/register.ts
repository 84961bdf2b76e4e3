// Wires a resource module into the app's src/app.ts: imports its handlers and plugin, spreads the handlers
// into what the `handlers` factory returns and appends the plugin to what the `plugins` factory returns. The
// edit is made on an in-memory copy and written once, so a file it cannot follow is left byte-identical.
// ts-morph (and prettier) load only when a registration runs: other `svc make:*` paths do not pay for them.
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type * as TsMorph from 'ts-morph';
import { names, type Names } from './names.js';

export interface AppRegistration {
  registered: boolean;
  /** Why nothing changed: 'src/app.ts not found' | 'already registered' | 'app.ts does not use createService({ handlers, plugins })'. */
  reason?: string;
  /** Absolute path of the app file. */
  appPath: string;
}

export const APP_NOT_FOUND = 'src/app.ts not found';
export const ALREADY_REGISTERED = 'already registered';
export const UNSUPPORTED_APP = 'app.ts does not use createService({ handlers, plugins })';

/** svckit's own style, for apps without a prettier config. */
const FALLBACK_PRETTIER = { singleQuote: true, printWidth: 110 };

type Morph = typeof TsMorph;
type Factory = TsMorph.ArrowFunction | TsMorph.FunctionExpression;

/** What one module adds to app.ts. */
interface ModuleWiring {
  handlersFunction: string;
  pluginFunction: string;
  routesSpecifier: string;
  pluginSpecifier: string;
}

/** The wiring as text, without writing: the new content when it would register. */
export async function planAppRegistration(
  name: string,
  options: { baseDir: string },
): Promise<AppRegistration & { text?: string }> {
  const appPath = resolve(options.baseDir, 'src', 'app.ts');
  const wiring = moduleWiring(names(name));
  let original: string;
  try {
    original = await readFile(appPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { registered: false, reason: APP_NOT_FOUND, appPath };
    }
    throw error;
  }
  const edited = wireInto(await import('ts-morph'), original, wiring);
  if (typeof edited !== 'object') return { registered: false, reason: edited, appPath };
  return { registered: true, appPath, text: await formatLikeTheApp(edited.text, appPath) };
}

/** Registers the module in <baseDir>/src/app.ts (writes the file once, only when every step succeeded). */
export async function registerResourceInApp(
  name: string,
  options: { baseDir: string },
): Promise<AppRegistration> {
  const { text, ...registration } = await planAppRegistration(name, options);
  if (registration.registered && text !== undefined) await writeFile(registration.appPath, text);
  return registration;
}

function moduleWiring(spelled: Names): ModuleWiring {
  const folder = `./modules/${spelled.kebab}/${spelled.kebab}`;
  return {
    handlersFunction: `${spelled.camel}Handlers`,
    pluginFunction: `${spelled.camel}Plugin`,
    routesSpecifier: `${folder}.routes.js`,
    pluginSpecifier: `${folder}.plugin.js`,
  };
}

/** The edited source, or the reason it is left alone. */
function wireInto(morph: Morph, text: string, wiring: ModuleWiring): { text: string } | string {
  // One file, no libs, no imports followed: parsing and editing need nothing else, so nothing else is read.
  const project = new morph.Project({
    useInMemoryFileSystem: true,
    skipFileDependencyResolution: true,
    compilerOptions: { noLib: true, noResolve: true, types: [] },
  });
  const file = project.createSourceFile('/src/app.ts', text);
  if (project.getProgram().getSyntacticDiagnostics(file).length > 0) return UNSUPPORTED_APP;
  if (importsModule(file, wiring)) return ALREADY_REGISTERED;

  const factories = compositionFactories(morph, file);
  if (factories === undefined) return UNSUPPORTED_APP;
  const { handlers, plugins } = factories;
  const mentioned = [wiring.handlersFunction, wiring.pluginFunction];
  if ([handlers, plugins].some((factory) => mentioned.some((name) => mentions(morph, factory, name)))) {
    return ALREADY_REGISTERED;
  }
  if (!isEditable(morph, handlers) || !isEditable(morph, plugins)) return UNSUPPORTED_APP;

  spreadHandlers(morph, handlers, wiring.handlersFunction);
  appendPlugin(morph, plugins, wiring.pluginFunction);
  file.addImportDeclarations([
    { namedImports: [wiring.handlersFunction], moduleSpecifier: wiring.routesSpecifier },
    { namedImports: [wiring.pluginFunction], moduleSpecifier: wiring.pluginSpecifier },
  ]);
  return { text: file.getFullText() };
}

/** Whether app.ts already imports the module, or a function of the same name. */
function importsModule(file: TsMorph.SourceFile, wiring: ModuleWiring): boolean {
  const withoutExtension = (specifier: string) => specifier.replace(/\.(?:js|ts|mjs|mts)$/, '');
  const specifiers = [wiring.routesSpecifier, wiring.pluginSpecifier].map(withoutExtension);
  return file.getImportDeclarations().some((declaration) => {
    if (specifiers.includes(withoutExtension(declaration.getModuleSpecifierValue()))) return true;
    return declaration
      .getNamedImports()
      .some((named) =>
        [wiring.handlersFunction, wiring.pluginFunction].includes(
          (named.getAliasNode() ?? named.getNameNode()).getText(),
        ),
      );
  });
}

/** The `handlers` and `plugins` factories of the first `createService({ handlers, plugins })` call. */
function compositionFactories(
  morph: Morph,
  file: TsMorph.SourceFile,
): { handlers: Factory; plugins: Factory } | undefined {
  const createService = localNameOf(file, 'createService');
  if (createService === undefined) return undefined;
  for (const call of file.getDescendantsOfKind(morph.SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!morph.Node.isIdentifier(callee) || callee.getText() !== createService) continue;
    const [options] = call.getArguments();
    if (!morph.Node.isObjectLiteralExpression(options)) continue;
    const handlers = factoryOf(morph, file, options, 'handlers');
    const plugins = factoryOf(morph, file, options, 'plugins');
    if (handlers !== undefined && plugins !== undefined && handlers !== plugins) return { handlers, plugins };
  }
  return undefined;
}

/** The name `imported` is bound to by a named import, if any. */
function localNameOf(file: TsMorph.SourceFile, imported: string): string | undefined {
  for (const declaration of file.getImportDeclarations()) {
    for (const named of declaration.getNamedImports()) {
      if (named.getName() === imported) return (named.getAliasNode() ?? named.getNameNode()).getText();
    }
  }
  return undefined;
}

/** The function an option of the call names: inline, or a top-level const initialized with one. */
function factoryOf(
  morph: Morph,
  file: TsMorph.SourceFile,
  options: TsMorph.ObjectLiteralExpression,
  key: 'handlers' | 'plugins',
): Factory | undefined {
  const property = options.getProperty(key);
  let value: TsMorph.Node | undefined;
  if (morph.Node.isShorthandPropertyAssignment(property)) value = property.getNameNode();
  else if (morph.Node.isPropertyAssignment(property)) value = property.getInitializer();
  if (value === undefined) return undefined;
  value = unwrapped(morph, value);
  if (morph.Node.isIdentifier(value)) {
    const declaration = file.getVariableDeclaration(value.getText());
    const kind = declaration?.getVariableStatement()?.getDeclarationKind();
    const initializer = declaration?.getInitializer();
    if (kind !== morph.VariableDeclarationKind.Const || initializer === undefined) return undefined;
    value = unwrapped(morph, initializer);
  }
  return morph.Node.isArrowFunction(value) || morph.Node.isFunctionExpression(value) ? value : undefined;
}

/** The expression inside parentheses and type assertions (`(x)`, `x satisfies T`, `x as T`). */
function unwrapped(morph: Morph, node: TsMorph.Node): TsMorph.Node {
  let current = node;
  while (
    morph.Node.isParenthesizedExpression(current) ||
    morph.Node.isSatisfiesExpression(current) ||
    morph.Node.isAsExpression(current)
  ) {
    current = current.getExpression();
  }
  return current;
}

function mentions(morph: Morph, factory: Factory, name: string): boolean {
  return factory
    .getDescendantsOfKind(morph.SyntaxKind.Identifier)
    .some((identifier) => identifier.getText() === name);
}

/**
 * Whether the factory's result can be edited: its body is an expression, or a block ending in its only
 * `return <expression>`; its first parameter (if any) is a name or a destructuring of the service.
 */
function isEditable(morph: Morph, factory: Factory): boolean {
  const [first] = factory.getParameters();
  if (first?.isRestParameter() || first?.getName() === 'this') return false;
  const body = factory.getBody();
  if (!morph.Node.isBlock(body)) return true;
  const returns = body
    .getDescendantsOfKind(morph.SyntaxKind.ReturnStatement)
    .filter(
      (statement) =>
        statement.getFirstAncestor((node) => morph.ts.isFunctionLike(node.compilerNode)) === factory,
    );
  const last = body.getStatements().at(-1);
  return (
    returns.length === 1 &&
    morph.Node.isReturnStatement(last) &&
    returns[0] === last &&
    last.getExpression() !== undefined
  );
}

/** `...<handlers>(service)` as the first property of the returned object. */
function spreadHandlers(morph: Morph, factory: Factory, handlersFunction: string): void {
  const service = serviceParameter(morph, factory);
  const spread = `${handlersFunction}(${service})`;
  const returned = returnedExpression(morph, factory);
  const object = unwrapped(morph, returned);
  if (!morph.Node.isObjectLiteralExpression(object)) {
    returned.replaceWithText(`({ ...${spread}, ...(${awaited(morph, factory, returned)}) })`);
    return;
  }
  // As the first property, on a line of its own only when the object already spreads over lines: prettier
  // keeps an object multi-line when its first property starts a line.
  const afterBrace = object.getText().slice(1);
  const separator = /^[ \t]*\r?\n/.test(afterBrace) ? '\n' : ' ';
  object.replaceWithText(`{${separator}...${spread},${afterBrace}`);
}

/** `<plugin>(service)` as the last element of the returned array. */
function appendPlugin(morph: Morph, factory: Factory, pluginFunction: string): void {
  const service = serviceParameter(morph, factory);
  const plugin = `${pluginFunction}(${service})`;
  const returned = returnedExpression(morph, factory);
  const array = unwrapped(morph, returned);
  if (morph.Node.isArrayLiteralExpression(array)) array.addElement(plugin);
  else returned.replaceWithText(`[...(${awaited(morph, factory, returned)}), ${plugin}]`);
}

/** The returned expression as spreadable text: an async factory may return a promise, so it is awaited. */
function awaited(morph: Morph, factory: Factory, returned: TsMorph.Expression): string {
  const pending = factory.isAsync() && !morph.Node.isAwaitExpression(unwrapped(morph, returned));
  return pending ? `await (${returned.getText()})` : returned.getText();
}

/**
 * The name the factory receives the service under. A factory without one gets a `service` parameter; a
 * destructured one (`({ stores }) => …`) is renamed and destructured in the body instead, so its names keep
 * working next to the service the module needs.
 */
function serviceParameter(morph: Morph, factory: Factory): string {
  const [first] = factory.getParameters();
  const nameNode = first?.getNameNode();
  if (morph.Node.isIdentifier(nameNode)) return nameNode.getText();
  const service = unusedName(morph, factory);
  if (first === undefined || nameNode === undefined) {
    factory.addParameter({ name: service });
    return service;
  }
  const pattern = nameNode.getText();
  nameNode.replaceWithText(service);
  const destructuring = `const ${pattern} = ${service};`;
  const body = factory.getBody();
  if (morph.Node.isBlock(body)) body.insertStatements(0, destructuring);
  else body.replaceWithText(`{\n${destructuring}\nreturn ${body.getText()};\n}`);
  return service;
}

/** `service`, or `service2`, … when the factory already uses that name for something else. */
function unusedName(morph: Morph, factory: Factory): string {
  const used = new Set(
    factory.getDescendantsOfKind(morph.SyntaxKind.Identifier).map((identifier) => identifier.getText()),
  );
  let name = 'service';
  for (let suffix = 2; used.has(name); suffix += 1) name = `service${suffix}`;
  return name;
}

/** The expression the factory returns: its expression body, or its final `return`'s (checked by isEditable). */
function returnedExpression(morph: Morph, factory: Factory): TsMorph.Expression {
  const body = factory.getBody();
  if (!morph.Node.isBlock(body)) return body as TsMorph.Expression;
  const last = body.getStatements().at(-1);
  const expression = morph.Node.isReturnStatement(last) ? last.getExpression() : undefined;
  if (expression === undefined) throw new Error('app.ts: the factory no longer ends in a return');
  return expression;
}

/** `text` printed with the app's prettier config (svckit's style when it has none). */
async function formatLikeTheApp(text: string, appPath: string): Promise<string> {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(appPath)) ?? FALLBACK_PRETTIER;
  return prettier.format(text, { ...config, filepath: appPath });
}
