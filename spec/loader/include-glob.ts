// The file patterns of `include:` (`specs/*.yaml`, `areas/**/routes.yaml`): `*` and `?` match within one
// path segment, `**` any number of directories. Dot-entries are never listed (editor swap files, .svc/, .git/)
// and `**` does not descend into node_modules. A wildcard never enters a directory whose real path is outside
// the base directory (a symbolic link to /usr): it would read, and the build watch, a tree that is not the
// project's. Only node:fs: the build cache re-lists the same directories without loading the spec loader.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** Whether an include path is a pattern rather than one file. */
export function isPattern(path: string): boolean {
  return /[*?]/.test(path);
}

/** The names a pattern sees in `dir`, sorted: every entry but dot-entries. Empty for a missing directory. */
export function patternListing(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

export interface PatternMatches {
  /** Absolute paths of the matching files, sorted. */
  files: string[];
  /** Absolute paths of the directories listed to find them. */
  directories: string[];
}

/**
 * The files matching `pattern`, a '/'-separated path relative to `baseDir` that the caller has normalised
 * (no '.' or '..' segments). Directories are never matches, and a wildcard never enters a directory outside
 * `baseDir` (by real path).
 */
export function matchPattern(baseDir: string, pattern: string): PatternMatches {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  const files = new Set<string>();
  const directories = new Set<string>();
  // Real paths of the directories `**` has entered, so a symbolic link to a parent cannot loop.
  const entered = new Set<string>();
  const root = realPath(baseDir) ?? baseDir;
  const inside = (dir: string): boolean => {
    const real = realPath(dir);
    if (real === undefined) return false;
    const rel = relative(root, real);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  };

  const walk = (dir: string, index: number): void => {
    const segment = segments[index];
    if (segment === undefined) return;
    const last = index === segments.length - 1;
    if (segment === '**') {
      if (last) return walkAll(dir);
      const real = realPath(dir);
      if (real === undefined || entered.has(real)) return;
      entered.add(real);
      walk(dir, index + 1);
      for (const name of list(dir)) {
        const path = join(dir, name);
        if (name !== 'node_modules' && kindOf(path) === 'directory' && inside(path)) walk(path, index);
      }
      return;
    }
    const names = isPattern(segment)
      ? list(dir).filter((name) => segmentRegex(segment).test(name))
      : [segment];
    for (const name of names) {
      const path = join(dir, name);
      const kind = kindOf(path);
      if (last && kind === 'file') files.add(path);
      // A folder the pattern names outright is entered: what it holds outside is reported by the caller.
      else if (!last && kind === 'directory' && (!isPattern(segment) || inside(path))) walk(path, index + 1);
    }
  };
  // A trailing `**` matches every file below.
  const walkAll = (dir: string): void => {
    const real = realPath(dir);
    if (real === undefined || entered.has(real)) return;
    entered.add(real);
    for (const name of list(dir)) {
      const path = join(dir, name);
      const kind = kindOf(path);
      if (kind === 'file') files.add(path);
      else if (kind === 'directory' && name !== 'node_modules' && inside(path)) walkAll(path);
    }
  };
  const list = (dir: string): string[] => {
    directories.add(dir);
    return patternListing(dir);
  };

  walk(baseDir, 0);
  return { files: [...files].sort(), directories: [...directories].sort() };
}

function segmentRegex(segment: string): RegExp {
  const body = segment
    .split('')
    .map((char) =>
      char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`, 'u');
}

function kindOf(path: string): 'file' | 'directory' | undefined {
  try {
    const info = statSync(path);
    return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : undefined;
  } catch {
    return undefined;
  }
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
