// The no-op rebuild cache, `.svc/build-cache.json` next to the spec. A build is skipped only when every
// input file (the spec, files it includes, the error catalog) hashes as recorded, every directory an include
// pattern listed still lists the same names (a new file may match), the key (generator
// fingerprint, output folder, runtime import, the environment values the spec refers to) matches, AND every
// output on disk still hashes as written, so a hand-edited generated file is regenerated.
// Only hashes are stored: environment values (which may be secrets) never reach the file.
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { patternListing } from '../spec/loader/include-glob.js';
import { generatorFingerprint } from './generator-version.js';
import { readIfExists, sha256, writeAtomically } from './output-files.js';

const CACHE_VERSION = 1;

export interface CacheEntry {
  key: string;
  /** Project-relative path → sha256 of the input file. */
  inputs: Record<string, string>;
  /** Project-relative path → sha256 of the output as written. */
  outputs: Record<string, string>;
  /** Project-relative directory an include pattern listed → sha256 of the names it saw there. */
  listings?: Record<string, string>;
}

interface CacheFile {
  version: number;
  /** `<spec>→<outDir>`, both project-relative. */
  entries: Record<string, CacheEntry>;
}

export interface CacheScope {
  /** Folder holding the spec; the cache lives in its `.svc/`. */
  projectDir: string;
  specFile: string;
  outDir: string;
  runtimeImport: string;
  env: Record<string, string | undefined>;
}

export function cacheFile(projectDir: string): string {
  return join(projectDir, '.svc', 'build-cache.json');
}

/** The recorded outputs (absolute paths) when nothing changed since they were written; otherwise undefined. */
export async function cachedOutputs(scope: CacheScope): Promise<string[] | undefined> {
  const entry = (await readCache(scope.projectDir))?.entries[entryId(scope)];
  if (!isCacheEntry(entry)) return undefined;
  const inputTexts: string[] = [];
  for (const [path, hash] of Object.entries(entry.inputs)) {
    const bytes = await readIfExists(resolve(scope.projectDir, path));
    if (!bytes || sha256(bytes) !== hash) return undefined;
    inputTexts.push(bytes.toString('utf8'));
  }
  for (const [path, hash] of Object.entries(entry.listings ?? {}))
    if (listingHash(resolve(scope.projectDir, path)) !== hash) return undefined;
  if ((await cacheKey(scope, inputTexts)) !== entry.key) return undefined;
  const outputs: string[] = [];
  for (const [path, hash] of Object.entries(entry.outputs)) {
    const absolute = resolve(scope.projectDir, path);
    const bytes = await readIfExists(absolute);
    if (!bytes || sha256(bytes) !== hash) return undefined;
    outputs.push(absolute);
  }
  return outputs;
}

/**
 * Records a successful build. `inputFiles` and `listedDirectories` (those include patterns listed, IR
 * `sources.directories`) are absolute; `outputs` maps absolute paths to their content.
 */
export async function recordBuild(
  scope: CacheScope,
  inputFiles: readonly string[],
  outputs: ReadonlyArray<{ path: string; content: string }>,
  listedDirectories: readonly string[] = [],
): Promise<void> {
  const inputs: Record<string, string> = {};
  const inputTexts: string[] = [];
  for (const file of [...new Set(inputFiles)].sort()) {
    const bytes = await readIfExists(file);
    if (!bytes) continue;
    inputs[relative(scope.projectDir, file)] = sha256(bytes);
    inputTexts.push(bytes.toString('utf8'));
  }
  const entry: CacheEntry = {
    key: await cacheKey(scope, inputTexts),
    inputs,
    outputs: Object.fromEntries(
      outputs.map((output) => [relative(scope.projectDir, output.path), sha256(output.content)]),
    ),
  };
  if (listedDirectories.length > 0) {
    entry.listings = Object.fromEntries(
      listedDirectories.map((dir) => [relative(scope.projectDir, dir), listingHash(dir)]),
    );
  }
  const cache = (await readCache(scope.projectDir)) ?? { version: CACHE_VERSION, entries: {} };
  cache.entries[entryId(scope)] = entry;
  await writeAtomically(cacheFile(scope.projectDir), `${JSON.stringify(cache, null, 2)}\n`);
}

async function cacheKey(scope: CacheScope, inputTexts: readonly string[]): Promise<string> {
  const names = new Set<string>();
  for (const text of inputTexts)
    for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1] ?? '');
  const env = [...names].sort().map((name) => [name, scope.env[name] ?? null]);
  return sha256(
    JSON.stringify({
      version: CACHE_VERSION,
      generator: await generatorFingerprint(),
      outDir: relative(scope.projectDir, scope.outDir),
      runtimeImport: scope.runtimeImport,
      env,
    }),
  );
}

/** The names an include pattern sees in `dir` (never the contents: changed files are inputs). */
function listingHash(dir: string): string {
  return sha256(JSON.stringify(patternListing(dir)));
}

function entryId(scope: CacheScope): string {
  return `${relative(scope.projectDir, scope.specFile)}→${relative(scope.projectDir, scope.outDir)}`;
}

/** A missing, unreadable or foreign cache file is an empty cache: the build just runs. */
async function readCache(projectDir: string): Promise<CacheFile | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(cacheFile(projectDir), 'utf8'));
    if (!isCacheFile(parsed)) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

function isCacheFile(value: unknown): value is CacheFile {
  if (value === null || typeof value !== 'object') return false;
  const { version, entries } = value as Partial<CacheFile>;
  return (
    version === CACHE_VERSION && entries !== null && typeof entries === 'object' && !Array.isArray(entries)
  );
}

function isCacheEntry(value: unknown): value is CacheEntry {
  if (value === null || typeof value !== 'object') return false;
  const { key, inputs, outputs, listings } = value as Partial<CacheEntry>;
  return (
    typeof key === 'string' &&
    isHashMap(inputs) &&
    isHashMap(outputs) &&
    (listings === undefined || isHashMap(listings))
  );
}

function isHashMap(value: unknown): value is Record<string, string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((hash) => typeof hash === 'string')
  );
}
