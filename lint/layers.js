// The `layers/imports` lint rule: each folder of svckit imports the layers below it and never the other way
// (docs/design.md, "Layers"). Specifiers are resolved to the file they name, so relative paths, the package's
// own subpaths (`svckit/spec`, through package.json "exports"), dynamic `import()` (a template by the folder
// its fixed text names) and `require()` are all checked, type imports included. The zones themselves are listed in eslint.config.js.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `svckit/<subpath>` → the source file it serves in this checkout (the `svckit-source` condition). */
const PACKAGE_SUBPATHS = packageSubpaths();

function packageSubpaths() {
  /** @type {{ name: string, exports: Record<string, string | Record<string, string>> }} */
  const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
  /** @type {Map<string, string>} */
  const subpaths = new Map();
  for (const [key, target] of Object.entries(manifest.exports)) {
    const source = typeof target === 'string' ? target : (target['svckit-source'] ?? target.default);
    if (source !== undefined) subpaths.set(`${manifest.name}${key.slice(1)}`, source.replace(/^\.\//, ''));
  }
  return subpaths;
}

/**
 * The repository-relative path (with `/`) an import specifier names, or undefined for other packages. A
 * `.js` specifier names the `.ts` source beside it when there is one, as TypeScript resolves it.
 */
function resolveSpecifier(specifier, filename) {
  if (!specifier.startsWith('.')) return PACKAGE_SUBPATHS.get(specifier);
  const absolute = resolve(dirname(filename), specifier);
  const source = absolute.replace(/\.js$/, '.ts');
  return toRepoPath(source !== absolute && existsSync(source) ? source : absolute);
}

function toRepoPath(absolute) {
  return relative(ROOT, absolute).split(sep).join('/');
}

function isInside(path, folder) {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * @typedef {object} Zone
 * @property {string} layer the folder whose files the zone checks (`runtime/app`)
 * @property {string[]} forbid folders those files may not import
 * @property {string[]} [allow] sub-folders of a forbidden folder they may import after all
 * @property {string} reason why, said in the message
 */

/** @type {import('eslint').Rule.RuleModule} */
const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Layers import one way: a folder never imports the folders that build on it.' },
    schema: [
      {
        type: 'object',
        properties: {
          zones: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                layer: { type: 'string' },
                forbid: { type: 'array', items: { type: 'string' } },
                allow: { type: 'array', items: { type: 'string' } },
                reason: { type: 'string' },
              },
              required: ['layer', 'forbid', 'reason'],
              additionalProperties: false,
            },
          },
        },
        required: ['zones'],
        additionalProperties: false,
      },
    ],
    messages: {
      wrongWay: '{{file}} imports {{target}}, but {{layer}} must not import {{forbidden}}: {{reason}}.',
    },
  },
  create(context) {
    /** @type {Zone[]} */
    const allZones = context.options[0]?.zones ?? [];
    const file = toRepoPath(context.filename);
    const zones = allZones.filter((zone) => isInside(file, zone.layer));
    if (zones.length === 0) return {};

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const target = resolveSpecifier(specifier, context.filename);
      if (target === undefined) return;
      for (const zone of zones) {
        const forbidden = zone.forbid.find((folder) => isInside(target, folder));
        if (forbidden === undefined) continue;
        if ((zone.allow ?? []).some((folder) => isInside(target, folder))) continue;
        context.report({
          node,
          messageId: 'wrongWay',
          data: { file, target, layer: zone.layer, forbidden, reason: zone.reason },
        });
        return;
      }
    }

    /**
     * A literal specifier, or a template: one without `${}` is a literal; one with them names at least the
     * folder its text before the first `${}` ends in (`../mcp/${name}.js` loads something in `../mcp/`).
     */
    function checkComputed(source) {
      if (source.type === 'Literal') return check(source, source.value);
      if (source.type !== 'TemplateLiteral') return;
      const head = source.quasis[0]?.value.cooked;
      if (source.expressions.length === 0) return check(source, head);
      const folder = typeof head === 'string' ? head.slice(0, head.lastIndexOf('/') + 1) : '';
      if (folder.startsWith('.')) check(source, folder);
    }

    /** Names that call a CommonJS `require` in this file. */
    const requireNames = new Set(['require']);
    const isCreateRequire = (node) =>
      node?.type === 'CallExpression' &&
      node.callee.type === 'Identifier' &&
      node.callee.name === 'createRequire';

    const staticSource = (node) => check(node.source, node.source?.value);
    return {
      ImportDeclaration: staticSource,
      ExportNamedDeclaration: staticSource,
      ExportAllDeclaration: staticSource,
      ImportExpression(node) {
        checkComputed(node.source);
      },
      // `const load = createRequire(…)`: `load('…')` then loads a module as surely as an import does.
      VariableDeclarator(node) {
        if (node.id.type === 'Identifier' && isCreateRequire(node.init)) requireNames.add(node.id.name);
      },
      // `require('…')`, `load('…')` as above, or `createRequire(…)('…')`.
      CallExpression(node) {
        const callee = node.callee;
        const requires =
          (callee.type === 'Identifier' && requireNames.has(callee.name)) || isCreateRequire(callee);
        if (requires && node.arguments[0]) checkComputed(node.arguments[0]);
      },
      TSImportType(node) {
        check(node, node.source?.value ?? node.argument?.literal?.value);
      },
      TSExternalModuleReference(node) {
        check(node, node.expression.value);
      },
    };
  },
};

export const layersPlugin = { rules: { imports: importsRule } };
