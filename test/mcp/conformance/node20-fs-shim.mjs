// `fs` as the conformance runner sees it on Node 20: the real module plus a `globSync`.
//
// The runner (0.2.0-alpha.12) calls globSync exactly once, from the `tier-check` command's
// result scoring: `globSync('**/checks.json', { cwd: resultsDir })`, then `dirname()`s each
// returned path to name the scenario and `join(resultsDir, path)`s it to read the file.
// Server scenarios never call it; it is implemented anyway so `tier-check` still works,
// covering the subset of Node 22's fs.globSync that such a call relies on:
//   - relative patterns with `*`, `?` and `**` path segments (no braces, classes or extglobs);
//   - string or URL `cwd` (default process.cwd());
//   - results relative to cwd, using the platform separator, files and directories alike;
//   - wildcards skip dot-entries, as Node's minimatch-based glob does by default.
// Anything else throws, instead of silently returning a wrong answer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export * from 'node:fs';
export default fs;

// Character classes, braces, escapes and extglobs (`+(`, `!(`, …) are minimatch syntax we do not implement.
const UNSUPPORTED_SYNTAX = /[[\]{}\\]|[!?+*@]\(/;

function segmentToRegExp(segment) {
  let source = '';
  for (const char of segment) {
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  // Leading wildcards never match dot-entries (minimatch `dot: false`).
  return segment.startsWith('*') || segment.startsWith('?') ? `(?!\\.)${source}` : source;
}

/** Compiles a glob to a RegExp over `/`-separated relative paths. Exported for tests. */
export function globToRegExp(pattern) {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new TypeError('globSync shim: pattern must be a non-empty string');
  }
  if (path.isAbsolute(pattern) || UNSUPPORTED_SYNTAX.test(pattern)) {
    throw new Error(
      `globSync shim (Node 20 stand-in for Node 22's fs.globSync) only supports relative patterns ` +
        `with *, ? and ** segments; got ${JSON.stringify(pattern)}`,
    );
  }
  const segments = pattern.split('/').filter((segment) => segment !== '' && segment !== '.');
  let source = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      // Zero or more non-dot directories; as the last segment it also matches the entries below.
      source += last ? '(?:(?!\\.)[^/]+(?:/(?!\\.)[^/]+)*)?' : '(?:(?!\\.)[^/]+/)*';
    } else {
      source += segmentToRegExp(segment) + (last ? '' : '/');
    }
  });
  return new RegExp(`^${source}$`, process.platform === 'win32' || process.platform === 'darwin' ? 'i' : '');
}

export function globSync(pattern, options = {}) {
  const { cwd = process.cwd(), ...rest } = options ?? {};
  const unsupported = Object.keys(rest).filter((key) => rest[key] !== undefined);
  if (unsupported.length > 0) {
    throw new Error(
      `globSync shim: unsupported option(s) ${unsupported.join(', ')} (only cwd is implemented)`,
    );
  }
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const matchers = patterns.map(globToRegExp);
  const root = cwd instanceof URL ? fileURLToPath(cwd) : String(cwd);
  // A missing cwd yields no matches, as in Node 22.
  if (!fs.existsSync(root)) return [];
  const entries = fs.readdirSync(root, { recursive: true, encoding: 'utf8' });
  return entries.filter((entry) => {
    const posix = entry.split(path.sep).join('/');
    return matchers.some((matcher) => matcher.test(posix));
  });
}
