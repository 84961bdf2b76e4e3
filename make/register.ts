// Wires a resource module into the app's src/app.ts: imports its handlers and plugin, spreads the handlers
// into what the `handlers` factory returns and appends the plugin to what the `plugins` factory returns. The
// edit is made on an in-memory copy and written once, so a file it cannot follow is left byte-identical.
// Only the wiring changes: the rest of the file keeps its bytes, and what is inserted follows the file's own
// quotes, semicolons, indentation and line breaks. An app with a prettier config is printed with it after.
// ts-morph (and prettier) load only when a registration runs: other `svc make:*` paths do not pay for them.
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type * as TsMorph from 'ts-morph';
import { formatForProject } from './format.js';
import { names, type Names } from './names.js';

export interface AppRegistration {
  registered: boolean;
  /**
   * Why nothing changed: 'src/app.ts not found' | 'already registered' |
   * 'app.ts does not use createService({ handlers, plugins })' | 'app.ts already declares <name>' |
   * 'app.ts already uses <name>'.
   */
  reason?: string;
  /** Absolute path of the app file. */
  appPath: string;
}

export const APP_NOT_FOUND = 'src/app.ts not found';
export const ALREADY_REGISTERED = 'already registered';
export const UNSUPPORTED_APP = 'app.ts does not use createService({ handlers, plugins })';

/** The reason when app.ts binds a name the wiring would import: importing it too would not compile. */
export function alreadyDeclared(name: string): string {
  return `app.ts already declares ${name}`;
}

/** The reason when a factory refers to a name the app does not import from the module: wired by hand, half-way. */
export function alreadyUsed(name: string): string {
  return `app.ts already uses ${name}`;
}

type Morph = typeof TsMorph;

let tsMorphLoaded = false;

/** Whether this thread has loaded ts-morph for a registration already: planning another here costs little. */
export function hasLoadedTsMorph(): boolean {
  return tsMorphLoaded;
}
type Factory = TsMorph.ArrowFunction | TsMorph.FunctionExpression;
type Literal = TsMorph.ObjectLiteralExpression | TsMorph.ArrayLiteralExpression;

/** What one module adds to app.ts. */
export interface ModuleWiring {
  handlersFunction: string;
  pluginFunction: string;
  routesSpecifier: string;
  pluginSpecifier: string;
}

/** How app.ts is written, so that what the wiring inserts reads as if typed there. */
interface Style {
  lineBreak: '\n' | '\r\n';
  /** One level of indentation. */
  indent: string;
  quote: string;
  /** ';', or '' in a file that leaves statements unterminated. */
  semicolon: string;
  /** Whether a literal spread over lines ends its last element with a comma. */
  trailingComma: boolean;
  /** A line longer than this (the file's longest line of code, 80 at least) is split. */
  width: number;
}

/** Replace [start, end) of the text with `text`. */
interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The wiring as text, without writing: the new content when it would register. */
export async function planAppRegistration(
  name: string,
  options: { baseDir: string },
): Promise<AppRegistration & { text?: string }> {
  const appPath = resolve(options.baseDir, 'src', 'app.ts');
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
  const morph = await import('ts-morph');
  tsMorphLoaded = true;
  const edited = wireInto(morph, original, moduleWiring(names(name)));
  if (typeof edited !== 'object') return { registered: false, reason: edited, appPath };
  return { registered: true, appPath, text: await formatWithTheAppsConfig(edited.text, appPath) };
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

/** The names and import paths a resource module's wiring uses in src/app.ts. */
export function moduleWiring(spelled: Names): ModuleWiring {
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
  const parse = (source: string) => project.createSourceFile('/src/app.ts', source, { overwrite: true });
  const file = parse(text);
  if (project.getProgram().getSyntacticDiagnostics(file).length > 0) return UNSUPPORTED_APP;
  if (importsModule(file, wiring)) return ALREADY_REGISTERED;
  const added = [wiring.handlersFunction, wiring.pluginFunction];
  const declared = added.find((name) => declares(morph, file, name));
  if (declared !== undefined) return alreadyDeclared(declared);

  const factories = compositionFactories(morph, file);
  if (factories === undefined) return UNSUPPORTED_APP;
  const { handlers, plugins } = factories;
  const used = added.find((name) => [handlers, plugins].some((factory) => mentions(morph, factory, name)));
  if (used !== undefined) return alreadyUsed(used);
  if (!isEditable(morph, handlers) || !isEditable(morph, plugins)) return UNSUPPORTED_APP;

  // Each step edits the text of the previous one, re-parsed: its nodes are found afresh, never stale.
  const style = styleOf(morph, file, text);
  let source = text;
  const factory = (key: 'handlers' | 'plugins'): Factory => {
    const found = compositionFactories(morph, parse(source));
    if (found === undefined) throw new Error('app.ts: the factories were lost while wiring');
    return found[key];
  };
  for (const [key, wire, called] of [
    ['handlers', spreadFirst, wiring.handlersFunction],
    ['plugins', appendLast, wiring.pluginFunction],
  ] as const) {
    const service = serviceParameter(morph, factory(key), style);
    source = applied(source, service.edits);
    source = applied(source, wire(morph, factory(key), `${called}(${service.name})`, style));
    source = applied(source, splitWhenTooWide(morph, factory(key), style));
  }
  source = applied(source, importLines(parse(source), wiring, style));
  return { text: source };
}

/** Whether app.ts imports from the module's own routes or plugin file: then it is wired already. */
function importsModule(file: TsMorph.SourceFile, wiring: ModuleWiring): boolean {
  const withoutExtension = (specifier: string) => specifier.replace(/\.(?:js|ts|mjs|mts)$/, '');
  const specifiers = [wiring.routesSpecifier, wiring.pluginSpecifier].map(withoutExtension);
  return file
    .getImportDeclarations()
    .some((declaration) => specifiers.includes(withoutExtension(declaration.getModuleSpecifierValue())));
}

/** Whether `name` is bound anywhere in the file: an import, a variable, a parameter, a function, a class, a type. */
function declares(morph: Morph, file: TsMorph.SourceFile, name: string): boolean {
  const kind = morph.SyntaxKind;
  const declarations = new Set<TsMorph.SyntaxKind>([
    kind.ImportSpecifier,
    kind.ImportClause,
    kind.NamespaceImport,
    kind.ImportEqualsDeclaration,
    kind.VariableDeclaration,
    kind.BindingElement,
    kind.Parameter,
    kind.FunctionDeclaration,
    kind.FunctionExpression,
    kind.ClassDeclaration,
    kind.ClassExpression,
    kind.EnumDeclaration,
    kind.ModuleDeclaration,
    kind.InterfaceDeclaration,
    kind.TypeAliasDeclaration,
  ]);
  return file.getDescendantsOfKind(kind.Identifier).some((identifier) => {
    const parent = identifier.getParent();
    if (identifier.getText() !== name || parent === undefined || !declarations.has(parent.getKind())) {
      return false;
    }
    // The declared name, not another part of the declaration (`{ blogPostPlugin: renamed }`, `as`).
    return (parent.compilerNode as { name?: unknown }).name === identifier.compilerNode;
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

/**
 * The name the factory receives the service under, and the edits that give it one. A factory without one
 * gets a `service` parameter; a destructured one (`({ stores }) => …`) is renamed and destructured in the
 * body instead, so its names keep working next to the service the module needs.
 */
function serviceParameter(morph: Morph, factory: Factory, style: Style): { name: string; edits: TextEdit[] } {
  const [first] = factory.getParameters();
  const nameNode = first?.getNameNode();
  if (morph.Node.isIdentifier(nameNode)) return { name: nameNode.getText(), edits: [] };
  const name = unusedName(morph, factory);
  if (first === undefined || nameNode === undefined) {
    const open = factory.getFirstChildByKindOrThrow(morph.SyntaxKind.OpenParenToken).getEnd();
    return { name, edits: [{ start: open, end: open, text: name }] };
  }
  const renamed = { start: nameNode.getStart(), end: nameNode.getEnd(), text: name };
  return {
    name,
    edits: [renamed, destructuredInBody(morph, factory, `const ${nameNode.getText()} = ${name}`, style)],
  };
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

/** `declaration` as the body's first statement; an expression body becomes a block that returns it. */
function destructuredInBody(morph: Morph, factory: Factory, declaration: string, style: Style): TextEdit {
  const text = factory.getSourceFile().getFullText();
  const body = factory.getBody();
  if (morph.Node.isBlock(body)) {
    const [first] = body.getStatements();
    if (first === undefined) throw new Error('app.ts: the factory no longer ends in a return');
    const at = afterTrailingComments(morph, text, body.getStart() + 1);
    const statement = `${declaration}${terminator(style, first.getText())}`;
    return { start: at, end: at, text: `${style.lineBreak}${indentAt(text, first.getStart())}${statement}` };
  }
  if (!morph.Node.isArrowFunction(factory)) throw new Error('app.ts: a function expression without a block');
  const arrow = factory.getEqualsGreaterThan();
  const outer = indentAt(text, arrow.getStart());
  const inner = outer + style.indent;
  // `({ … })` returns the object itself: the parentheses were only there for the arrow.
  let from = body.getStart();
  let to = body.getEnd();
  if (morph.Node.isParenthesizedExpression(body)) {
    from = body.getExpression().getStart();
    to = body.getExpression().getEnd();
  }
  const returned = reindented(
    text,
    from,
    to,
    indentAt(text, body.getStart()),
    inner,
    templatesIn(morph, body),
  );
  const block = [
    '{',
    `${inner}${declaration}${style.semicolon || terminator(style, returned)}`,
    `${inner}return ${returned}${style.semicolon}`,
    `${outer}}`,
  ].join(style.lineBreak);
  const onArrowLine = text.slice(arrow.getEnd(), body.getStart()).trim() === '';
  return onArrowLine
    ? { start: arrow.getEnd(), end: body.getEnd(), text: ` ${block}` }
    : { start: body.getStart(), end: body.getEnd(), text: block };
}

/** `...<call>` as the first property of the object the handlers factory returns. */
function spreadFirst(morph: Morph, factory: Factory, call: string, style: Style): TextEdit[] {
  const text = factory.getSourceFile().getFullText();
  const returned = returnedExpression(morph, factory);
  const object = unwrapped(morph, returned);
  const spread = `...${call}`;
  if (!morph.Node.isObjectLiteralExpression(object)) {
    const merged = mergedLiteral(morph, factory, returned, ['{', '}'], [spread, null], style);
    const asBody = !morph.Node.isBlock(factory.getBody());
    return [{ start: returned.getStart(), end: returned.getEnd(), text: asBody ? `(${merged})` : merged }];
  }
  const [first] = object.getProperties();
  if (first === undefined) return [intoEmpty(morph, text, object, spread, style)];
  if (lineOf(text, object.getStart()) === lineOf(text, first.getStart())) {
    return [{ start: first.getStart(), end: first.getStart(), text: `${spread}, ` }];
  }
  // On a line of its own, before whatever (comments included) opened the object's first line.
  const at = nextLineStart(text, afterTrailingComments(morph, text, object.getStart() + 1));
  return [{ start: at, end: at, text: `${indentAt(text, first.getStart())}${spread},${style.lineBreak}` }];
}

/** `<call>` as the last element of the array the plugins factory returns. */
function appendLast(morph: Morph, factory: Factory, call: string, style: Style): TextEdit[] {
  const text = factory.getSourceFile().getFullText();
  const returned = returnedExpression(morph, factory);
  const array = unwrapped(morph, returned);
  if (!morph.Node.isArrayLiteralExpression(array)) {
    const appended = mergedLiteral(morph, factory, returned, ['[', ']'], [null, call], style);
    return [{ start: returned.getStart(), end: returned.getEnd(), text: appended }];
  }
  const last = array.getElements().at(-1);
  if (last === undefined) return [intoEmpty(morph, text, array, call, style)];
  const comma = array.compilerNode.elements.hasTrailingComma
    ? array.getFirstChildByKindOrThrow(morph.SyntaxKind.SyntaxList).getLastChildOrThrow().getEnd()
    : undefined;
  if (lineOf(text, last.getEnd()) === lineOf(text, array.getEnd() - 1)) {
    return [{ start: last.getEnd(), end: comma ?? last.getEnd(), text: `, ${call}` }];
  }
  // On a line of its own after the last element, its comma and its comment; the array's comma style kept.
  const at = afterTrailingComments(morph, text, comma ?? last.getEnd());
  const line = `${style.lineBreak}${indentAt(text, last.getStart())}${call}`;
  if (comma !== undefined) return [{ start: at, end: at, text: `${line},` }];
  return [{ start: last.getEnd(), end: at, text: `,${text.slice(last.getEnd(), at)}${line}` }];
}

/** `element` into `{}` / `[]`, or onto a line of its own in an empty literal already spread over lines. */
function intoEmpty(morph: Morph, text: string, literal: Literal, element: string, style: Style): TextEdit {
  const [open, close] = [literal.getStart(), literal.getEnd() - 1];
  if (close === open + 1) {
    const padded = morph.Node.isObjectLiteralExpression(literal) ? ` ${element} ` : element;
    return { start: open + 1, end: close, text: padded };
  }
  const at = afterTrailingComments(morph, text, open + 1);
  if (lineOf(text, open) === lineOf(text, close)) return { start: at, end: at, text: ` ${element}` };
  const comma = style.trailingComma ? ',' : '';
  return {
    start: at,
    end: at,
    text: `${style.lineBreak}${indentAt(text, close)}${style.indent}${element}${comma}`,
  };
}

/**
 * A literal holding `elements`, `null` standing for the spread returned expression: on one line, or one
 * element per line when that expression spans lines already.
 */
function mergedLiteral(
  morph: Morph,
  factory: Factory,
  returned: TsMorph.Expression,
  [open, close]: readonly [string, string],
  elements: readonly (string | null)[],
  style: Style,
): string {
  const text = factory.getSourceFile().getFullText();
  const [start, end] = [returned.getStart(), returned.getEnd()];
  if (lineOf(text, start) === lineOf(text, end)) {
    const spread = `...${spreadable(morph, factory, returned, returned.getText())}`;
    const inline = elements.map((element) => element ?? spread).join(', ');
    return open === '{' ? `{ ${inline} }` : `[${inline}]`;
  }
  const outer = indentAt(text, start);
  const inner = outer + style.indent;
  const operand = reindented(text, start, end, outer, inner, templatesIn(morph, returned));
  const spread = `...${spreadable(morph, factory, returned, operand)}`;
  const lines = elements.map((element, index) => {
    const comma = index < elements.length - 1 || style.trailingComma ? ',' : '';
    return `${inner}${element ?? spread}${comma}`;
  });
  return [open, ...lines, `${outer}${close}`].join(style.lineBreak);
}

/** The returned expression's text as the operand of `...`: awaited when an async factory may return a promise. */
function spreadable(morph: Morph, factory: Factory, returned: TsMorph.Expression, text: string): string {
  const plain =
    morph.Node.isIdentifier(returned) ||
    morph.Node.isCallExpression(returned) ||
    morph.Node.isPropertyAccessExpression(returned) ||
    morph.Node.isElementAccessExpression(returned) ||
    morph.Node.isNewExpression(returned) ||
    morph.Node.isParenthesizedExpression(returned) ||
    morph.Node.isObjectLiteralExpression(returned) ||
    morph.Node.isArrayLiteralExpression(returned);
  const operand = plain ? text : `(${text})`;
  const pending = factory.isAsync() && !morph.Node.isAwaitExpression(unwrapped(morph, returned));
  return pending ? `(await ${operand})` : operand;
}

/** The spans of template literals under `node`: their lines are text, never re-indented. */
function templatesIn(morph: Morph, node: TsMorph.Node): [number, number][] {
  return node
    .getDescendants()
    .filter(
      (child) => morph.Node.isNoSubstitutionTemplateLiteral(child) || morph.Node.isTemplateExpression(child),
    )
    .map((child): [number, number] => [child.getStart(), child.getEnd()]);
}

/** The returned object or array split one element per line, when its one line is wider than the file's lines. */
function splitWhenTooWide(morph: Morph, factory: Factory, style: Style): TextEdit[] {
  const text = factory.getSourceFile().getFullText();
  const literal = unwrapped(morph, returnedExpression(morph, factory));
  let elements: TsMorph.Node[];
  if (morph.Node.isObjectLiteralExpression(literal)) elements = literal.getProperties();
  else if (morph.Node.isArrayLiteralExpression(literal)) elements = literal.getElements();
  else return [];
  const [start, end] = [literal.getStart(), literal.getEnd()];
  if (elements.length === 0 || lineOf(text, start) !== lineOf(text, end)) return [];
  if (widthOf(text.slice(lineStartOf(text, start), lineEndOf(text, end))) <= style.width) return [];
  // Only separators between the elements, else a comment would be lost.
  const separators = elements.reduceRight(
    (inside, element) => inside.slice(0, element.getStart() - start) + inside.slice(element.getEnd() - start),
    text.slice(start, end),
  );
  if (separators.includes('/')) return [];
  const outer = indentAt(text, start);
  const lines = elements.map((element, index) => {
    const comma = index < elements.length - 1 || style.trailingComma ? ',' : '';
    return `${outer}${style.indent}${element.getText()}${comma}`;
  });
  const [open, close] = [text[start], text[end - 1]];
  return [{ start, end, text: [open, ...lines, `${outer}${close}`].join(style.lineBreak) }];
}

/** The module's two imports, on lines of their own after the app's last import. */
function importLines(file: TsMorph.SourceFile, wiring: ModuleWiring, style: Style): TextEdit[] {
  const text = file.getFullText();
  const last = file.getImportDeclarations().at(-1);
  if (last === undefined) throw new Error('app.ts: createService is no longer imported');
  const at = lineEndOf(text, last.getEnd());
  const line = (name: string, specifier: string) =>
    `import { ${name} } from ${style.quote}${specifier}${style.quote}${style.semicolon}`;
  const lines = [
    line(wiring.handlersFunction, wiring.routesSpecifier),
    line(wiring.pluginFunction, wiring.pluginSpecifier),
  ];
  return [{ start: at, end: at, text: lines.map((imported) => style.lineBreak + imported).join('') }];
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

/** How app.ts is written, read from its own text. */
function styleOf(morph: Morph, file: TsMorph.SourceFile, text: string): Style {
  const [firstImport] = file.getImportDeclarations();
  const code = text.split(/\r?\n/).filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line));
  const indents = code.map((line) => /^[ \t]*/.exec(line)?.[0] ?? '').filter((indent) => indent !== '');
  const spaces = Math.min(
    ...indents.filter((indent) => !indent.includes('\t')).map((indent) => indent.length),
  );
  let indent = '  ';
  if (indents[0]?.startsWith('\t')) indent = '\t';
  else if (Number.isFinite(spaces)) indent = ' '.repeat(Math.min(Math.max(spaces, 2), 8));
  return {
    lineBreak: lineBreakOf(text),
    indent,
    quote: firstImport?.getModuleSpecifier().getText()[0] ?? "'",
    semicolon: firstImport === undefined || firstImport.getText().endsWith(';') ? ';' : '',
    trailingComma: usesTrailingCommas(morph, file, text),
    width: Math.max(80, ...code.map(widthOf)),
  };
}

/** Whether the file's first literal spread over lines ends in a comma (yes when it has none). */
function usesTrailingCommas(morph: Morph, file: TsMorph.SourceFile, text: string): boolean {
  for (const node of file.getDescendants()) {
    let elements: TsMorph.ts.NodeArray<TsMorph.ts.Node>;
    if (morph.Node.isObjectLiteralExpression(node)) elements = node.compilerNode.properties;
    else if (morph.Node.isArrayLiteralExpression(node)) elements = node.compilerNode.elements;
    else continue;
    const last = elements.at(-1);
    if (last !== undefined && lineOf(text, last.end) !== lineOf(text, node.getEnd())) {
      return elements.hasTrailingComma;
    }
  }
  return true;
}

/** The file's line break: the one that ends its first line. */
function lineBreakOf(text: string): '\n' | '\r\n' {
  const first = text.indexOf('\n');
  return first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
}

/** A statement's end in a file without semicolons: one all the same when the next line could continue it. */
function terminator(style: Style, next: string): string {
  return style.semicolon || (/^[[(`+\-/]/.test(next) ? ';' : '');
}

/** The text with the edits made (they do not overlap; each position is the original's). */
function applied(text: string, edits: readonly TextEdit[]): string {
  return [...edits]
    .sort((a, b) => b.start - a.start)
    .reduce((result, edit) => result.slice(0, edit.start) + edit.text + result.slice(edit.end), text);
}

/** `text[from, to)` with each line after the first moved from indentation `base` to `target`, template text kept. */
function reindented(
  text: string,
  from: number,
  to: number,
  base: string,
  target: string,
  keep: readonly (readonly [number, number])[],
): string {
  let result = '';
  let copied = from;
  for (
    let lineStart = nextLineStart(text, from);
    lineStart < to;
    lineStart = nextLineStart(text, lineStart)
  ) {
    const inTemplate = keep.some(([start, end]) => lineStart > start && lineStart < end);
    const blank = text[lineStart] === '\n' || text[lineStart] === '\r';
    if (inTemplate || blank || !text.startsWith(base, lineStart)) continue;
    result += text.slice(copied, lineStart) + target;
    copied = lineStart + base.length;
  }
  return result + text.slice(copied, to);
}

/** Past the comments that follow `position` on its line. */
function afterTrailingComments(morph: Morph, text: string, position: number): number {
  return morph.ts.getTrailingCommentRanges(text, position)?.at(-1)?.end ?? position;
}

function lineOf(text: string, position: number): number {
  let line = 0;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < position;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
  }
  return line;
}

function lineStartOf(text: string, position: number): number {
  return text.lastIndexOf('\n', position - 1) + 1;
}

/** Where the line holding `position` ends, before its line break. */
function lineEndOf(text: string, position: number): number {
  const newline = text.indexOf('\n', position);
  if (newline === -1) return text.length;
  return text[newline - 1] === '\r' ? newline - 1 : newline;
}

/** Where the line after the one holding `position` starts (the end of the text on the last line). */
function nextLineStart(text: string, position: number): number {
  const newline = text.indexOf('\n', position);
  return newline === -1 ? text.length : newline + 1;
}

function indentAt(text: string, position: number): string {
  return /^[ \t]*/.exec(text.slice(lineStartOf(text, position)))?.[0] ?? '';
}

/** A line's width, a tab counting as two columns (prettier's default). */
function widthOf(line: string): number {
  return line.replace(/\t/g, '  ').length;
}

/**
 * `text` printed with the app's prettier config, when it has one: its file is printed with it already. An app
 * without one keeps the text as edited. The line breaks stay the file's either way.
 */
async function formatWithTheAppsConfig(text: string, appPath: string): Promise<string> {
  return (await formatForProject(appPath, text)).replace(/\r?\n/g, lineBreakOf(text));
}
