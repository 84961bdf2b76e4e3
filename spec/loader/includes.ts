// Includes: a big svc.config.yaml split into files. `include: [specs/*.yaml]` merges partial specs (their
// resources, routes, errors and metaKeys) into the document; `$include: file.yaml` replaces one section or
// one entry of a section with a file's content. Both run on the located tree before any check, so every
// later problem points into the file that holds the value, and `$ref`s and names resolve across files.
// Files stay inside the project directory (the directory of svc.config.yaml), symbolic links included.
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import type { Env } from '../../shared/env-template.js';
import type { SourceLocation, SpecSourcesIR } from '../../shared/ir.js';
import { asMap, type LoadContext, type Path } from './context.js';
import { describeNode } from './describe.js';
import { isPattern, matchPattern, patternListing } from './include-glob.js';
import { SVC_SCHEMA } from './package-files.js';
import { displayPath } from './problems.js';
import { closest, suggestionHint } from './suggest.js';
import { parseYaml, type MapEntry, type MapNode, type Node, type ScalarNode } from './yaml-tree.js';

/** The sections an included file may hold, and that `$include` may fill (whole, or one entry). */
export const INCLUDE_SECTIONS = ['resources', 'routes', 'errors', 'metaKeys'] as const;
type Section = (typeof INCLUDE_SECTIONS)[number];

const NAME_OF: Record<Section, string> = {
  resources: 'resource',
  routes: 'route',
  errors: 'error code',
  metaKeys: 'meta key',
};

const PARTIAL_KEYS: readonly string[] = [...INCLUDE_SECTIONS, 'include'];
const INCLUDE_KEY = '$include';

/** Resolves every include of the document `root` (read from `rootFile`) in place. */
export async function resolveIncludes(
  ctx: LoadContext,
  root: MapNode,
  rootFile: string,
  env: Env,
): Promise<SpecSourcesIR> {
  const includer = new Includer(ctx, rootFile, env);
  await includer.document(root, [rootFile]);
  includer.reportStrayIncludes(root, []);
  return includer.sources();
}

class Includer {
  private readonly projectDir: string;
  private realProjectDir: string | undefined;
  private readonly files: string[];
  private readonly directories = new Set<string>();
  /**
   * Real paths of the files merged through `include:` so far: a file named, matched or reached through a
   * symbolic link twice is merged once.
   */
  private readonly partials = new Set<string>();
  private readonly realPaths = new Map<string, Promise<string>>();

  constructor(
    private readonly ctx: LoadContext,
    private readonly rootFile: string,
    private readonly env: Env,
  ) {
    this.projectDir = dirname(rootFile);
    this.files = [rootFile];
  }

  sources(): SpecSourcesIR {
    return { files: [...this.files], directories: [...this.directories].sort() };
  }

  /** `$include`s of the document's sections, then its `include:` list. `chain` ends with its own file. */
  async document(map: MapNode, chain: readonly string[]): Promise<void> {
    for (const section of INCLUDE_SECTIONS) {
      const item = map.byKey.get(section);
      if (item) item.value = await this.resolveValue(item.value, [section], chain);
    }
    const list = map.byKey.get('include');
    if (!list) return;
    const file = chain[chain.length - 1]!;
    if (file !== this.rootFile) {
      // The root's list is checked with the whole document; a partial's is not part of it.
      this.ctx.report(this.ctx.structure.check(list.value, SVC_SCHEMA, '/properties/include', ['include']));
    }
    if (list.value.kind !== 'seq') return;
    for (const [index, item] of list.value.items.entries()) {
      const path = ['include', index];
      const targets = await this.targets(item, path, 'include');
      if (targets === undefined) continue;
      const written = item.kind === 'scalar' && typeof item.value === 'string' ? item.value : '';
      // A pattern matching the file it is written in (`*.yaml` beside svc.config.yaml), or one including
      // it, means the other files; a file named outright that includes itself is a cycle.
      const pattern = isPattern(written);
      for (const target of targets) {
        const start = await this.chainIndex(chain, target);
        if (start >= 0) {
          if (!pattern) this.cycle(item, path, chain.slice(start), target);
          continue;
        }
        // The same file reached by another path (a symbolic link) is merged once.
        const real = await this.real(target);
        if (this.partials.has(real)) continue;
        this.partials.add(real);
        const partial = await this.partial(target, item, path, chain);
        if (partial) this.merge(map, partial);
      }
    }
  }

  /** A `{ $include: file }` value replaced by the file's content; for a section, each entry in turn. */
  private async resolveValue(node: Node, path: Path, chain: readonly string[]): Promise<Node> {
    let current = node;
    let currentChain = chain;
    for (let map = asMap(current); map?.byKey.has(INCLUDE_KEY); map = asMap(current)) {
      const reference = map.byKey.get(INCLUDE_KEY)!;
      const others = map.entries.filter((item) => item.key !== INCLUDE_KEY);
      if (others.length > 0) {
        this.ctx.problems.add(
          others[0]!.keyLoc,
          [...path, others[0]!.key],
          `${path.join('.')}: $include replaces the whole value, so it takes no other key`,
          `move ${others.map((item) => item.key).join(', ')} into the included file, or write the value here without $include`,
        );
        return placeholder(map.loc);
      }
      const where = [...path, INCLUDE_KEY];
      const [target] = (await this.targets(reference.value, where, '$include')) ?? [];
      if (target === undefined) return placeholder(reference.value.loc);
      const start = await this.chainIndex(currentChain, target);
      if (start >= 0) {
        this.cycle(reference.value, where, currentChain.slice(start), target);
        return placeholder(reference.value.loc);
      }
      const content = await this.read(target, reference.value, where, 'write the value in it');
      if (content === undefined) return placeholder(reference.value.loc);
      current = content;
      currentChain = [...currentChain, target];
    }
    const sectionMap = path.length === 1 ? asMap(current) : undefined;
    for (const item of sectionMap?.entries ?? [])
      item.value = await this.resolveValue(item.value, [...path, item.key], currentChain);
    return current;
  }

  /** An included partial spec: a mapping of the include sections, its own includes resolved. */
  private async partial(
    file: string,
    at: Node,
    path: Path,
    chain: readonly string[],
  ): Promise<MapNode | undefined> {
    const hint = `write ${INCLUDE_SECTIONS.join(', ')} in it, or leave it out of include:`;
    const node = await this.read(file, at, path, hint);
    if (node === undefined) return undefined;
    const map = asMap(node);
    if (!map) {
      this.ctx.problems.add(
        node.loc,
        '',
        `an included file is a mapping of ${INCLUDE_SECTIONS.join(', ')} but this file holds ${describeNode(node)}`,
        'start it with routes: (or resources:, errors:, metaKeys:)',
      );
      return undefined;
    }
    for (const item of map.entries) {
      if (PARTIAL_KEYS.includes(item.key)) continue;
      this.ctx.problems.add(
        item.keyLoc,
        [item.key],
        `'${item.key}' cannot be in an included file, which holds only ${PARTIAL_KEYS.join(', ')}`,
        closest(item.key, PARTIAL_KEYS) === undefined
          ? `keep ${item.key} in ${displayPath(this.rootFile)}`
          : suggestionHint(item.key, PARTIAL_KEYS, 'allowed keys'),
      );
    }
    await this.document(map, [...chain, file]);
    return map;
  }

  /** Adds the partial's sections to the document's. A name already there is reported at both places. */
  private merge(target: MapNode, partial: MapNode): void {
    for (const section of INCLUDE_SECTIONS) {
      const source = partial.byKey.get(section);
      if (!source) continue;
      const from = asMap(source.value);
      if (!from) {
        if (!isPlaceholder(source.value)) {
          this.ctx.problems.add(
            source.value.loc,
            [section],
            `${section}: expected a mapping but got ${describeNode(source.value)}`,
            `write ${section}: { ... }, or remove it`,
          );
        }
        continue;
      }
      let into = target.byKey.get(section);
      if (!into) {
        // The document has none of its own: the section starts where the included file writes it.
        into = { key: section, keyLoc: source.keyLoc, value: emptyMap(from.loc) };
        target.entries.push(into);
        target.byKey.set(section, into);
      }
      const intoMap = asMap(into.value);
      if (!intoMap) continue; // not a mapping: the structure check reports it
      for (const item of from.entries) this.add(intoMap, item, section);
    }
  }

  private add(into: MapNode, item: MapEntry, section: Section): void {
    const first = into.byKey.get(item.key);
    if (!first) {
      into.entries.push(item);
      into.byKey.set(item.key, item);
      return;
    }
    const what = `${NAME_OF[section]} '${item.key}'`;
    const hint = `rename one of them, or remove one`;
    this.ctx.problems.add(
      item.keyLoc,
      [section, item.key],
      `${what} is already defined at ${where(first.keyLoc)}`,
      hint,
    );
    this.ctx.problems.add(
      first.keyLoc,
      [section, item.key],
      `${what} is defined again at ${where(item.keyLoc)}`,
      hint,
    );
  }

  /**
   * The files an include path names, each a file inside the project; undefined (reported) when it names
   * none. `$include` takes exactly one file, `include:` also patterns.
   */
  private async targets(node: Node, path: Path, kind: 'include' | '$include'): Promise<string[] | undefined> {
    if (node.kind !== 'scalar' || node.broken || typeof node.value !== 'string' || node.value === '') {
      // Wrong types in the root's include: are reported by the structure check.
      if (kind === '$include')
        this.problem(
          node,
          path,
          `${kind}: expected a file path but got ${describeNode(node)}`,
          'write $include: specs/resources.yaml',
        );
      return undefined;
    }
    const written = node.value;
    if (node.template !== undefined) {
      return this.problem(
        node,
        path,
        `${kind}: the path cannot use \${VAR}: which files make the spec must not depend on the environment`,
        'write the path itself',
      );
    }
    const includer = node.loc.file;
    if (isAbsolute(written) || /^[A-Za-z]:[\\/]/.test(written)) {
      return this.problem(
        node,
        path,
        `${kind}: '${written}' is an absolute path; included files are named relative to the file that includes them`,
        `write the path relative to the folder of ${displayPath(includer)}, inside the project directory`,
      );
    }
    const fromProject = posix.normalize(
      posix.join(
        relative(this.projectDir, dirname(includer)).split(sep).join('/'),
        written.replace(/\\/g, '/'),
      ),
    );
    if (fromProject === '..' || fromProject.startsWith('../')) {
      return this.problem(
        node,
        path,
        `${kind}: '${written}' is outside the project directory (${displayPath(this.projectDir)})`,
        `included files must be in the directory of ${displayPath(this.rootFile)} or below it: move the file there`,
      );
    }
    let files: string[];
    if (isPattern(written)) {
      if (kind === '$include') {
        return this.problem(
          node,
          path,
          `$include takes one file, but '${written}' is a pattern`,
          `name the file, or merge several files with include: ['${written}'] at the top level`,
        );
      }
      const matches = matchPattern(this.projectDir, fromProject);
      for (const dir of matches.directories) this.directories.add(dir);
      if (matches.files.length === 0) {
        return this.problem(
          node,
          path,
          `include: no file matches '${written}'`,
          `check the pattern (relative to the folder of ${displayPath(includer)}; * and ? match within one folder, ** across folders), or remove it`,
        );
      }
      files = matches.files;
    } else {
      const file = join(this.projectDir, fromProject);
      const kindOf = await stat(file).then(
        (info) => (info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other'),
        () => 'missing',
      );
      if (kindOf === 'missing') {
        const siblings = patternListing(dirname(file)).filter((name) => /\.ya?ml$/.test(name));
        const base = posix.basename(fromProject);
        const match = closest(base, siblings);
        return this.problem(
          node,
          path,
          `${kind}: file '${written}' not found (${displayPath(file)})`,
          match !== undefined
            ? `did you mean '${posix.join(posix.dirname(written), match)}'?`
            : `check the path: it is relative to the folder of ${displayPath(includer)}`,
        );
      }
      if (kindOf !== 'file') {
        return this.problem(
          node,
          path,
          `${kind}: '${written}' is not a file`,
          kind === 'include'
            ? `include the files of a folder with a pattern: '${posix.join(written, '*.yaml')}'`
            : 'name a YAML file',
        );
      }
      files = [file];
    }
    const inside: string[] = [];
    for (const file of files) {
      const real = await this.real(file);
      if (this.insideProject(real, await this.realProject())) inside.push(file);
      else {
        this.problem(
          node,
          path,
          `${kind}: '${displayPath(file)}' is a symbolic link to ${real}, outside the project directory`,
          'put the file itself inside the project directory instead of a link to it',
        );
      }
    }
    return inside.length === files.length ? inside : undefined;
  }

  /** Reads and parses an included file; problems inside it point into it. */
  private async read(file: string, at: Node, path: Path, emptyHint: string): Promise<Node | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return this.problem(
        at,
        path,
        `cannot read the included file ${displayPath(file)}: ${(error as Error).message}`,
        'check the file',
      );
    }
    if (!this.files.includes(file)) this.files.push(file);
    return parseYaml(file, text, this.env, this.ctx.problems, emptyHint);
  }

  /** `loop`: the files from the one `target` names again to the one naming it. */
  private cycle(at: Node, path: Path, loop: readonly string[], target: string): void {
    const files = [...loop, target].map((file) => displayPath(file)).join(' → ');
    this.problem(at, path, `include cycle: ${files}`, 'remove one of these includes');
  }

  /** The real path of `file` (symbolic links resolved), or `file` when it has none. */
  private real(file: string): Promise<string> {
    let real = this.realPaths.get(file);
    if (real === undefined) {
      real = realpath(file).catch(() => file);
      this.realPaths.set(file, real);
    }
    return real;
  }

  /** Where `target` is in `chain`, comparing real paths (a link to a file is that file); -1 when absent. */
  private async chainIndex(chain: readonly string[], target: string): Promise<number> {
    const real = await this.real(target);
    for (const [index, file] of chain.entries()) if ((await this.real(file)) === real) return index;
    return -1;
  }

  /**
   * Any `$include` left is in a place that takes none (inside a route, a schema, modules, …): reported,
   * then dropped, so the checks of that value do not report it again as an unknown key.
   */
  reportStrayIncludes(node: Node, path: Path): void {
    if (node.kind === 'seq')
      node.items.forEach((item, index) => this.reportStrayIncludes(item, [...path, index]));
    if (node.kind !== 'map') return;
    const stray = node.byKey.get(INCLUDE_KEY);
    if (stray?.value.kind === 'scalar' && typeof stray.value.value === 'string') {
      this.ctx.problems.add(
        stray.keyLoc,
        [...path, INCLUDE_KEY],
        `$include is not allowed in ${path.join('.') || 'the top level'}`,
        `$include replaces a whole section (${INCLUDE_SECTIONS.join(', ')}) or one entry of one, e.g. routes: { createNote: { $include: routes/create-note.yaml } }`,
      );
      node.entries.splice(node.entries.indexOf(stray), 1);
      node.byKey.delete(INCLUDE_KEY);
    }
    for (const item of node.entries) this.reportStrayIncludes(item.value, [...path, item.key]);
  }

  private problem(node: Node, path: Path, message: string, hint: string): undefined {
    this.ctx.problems.add(node.loc, path, message, hint);
    return undefined;
  }

  private async realProject(): Promise<string> {
    this.realProjectDir ??= await realpath(this.projectDir).catch(() => this.projectDir);
    return this.realProjectDir;
  }

  private insideProject(file: string, projectDir: string): boolean {
    const rel = relative(projectDir, file);
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  }
}

/** Stands in for a value whose include failed (already reported): every later check skips it. */
function placeholder(loc: SourceLocation): ScalarNode {
  return { kind: 'scalar', loc, value: true, style: 'plain', raw: '', broken: true };
}

function isPlaceholder(node: Node): boolean {
  return node.kind === 'scalar' && node.broken === true;
}

function emptyMap(loc: SourceLocation): MapNode {
  return { kind: 'map', loc, entries: [], byKey: new Map() };
}

function where(loc: SourceLocation): string {
  return `${displayPath(loc.file)}:${loc.line}:${loc.column}`;
}
