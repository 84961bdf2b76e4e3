// The package's entries: `svckit` re-exports every feature for convenience, and each feature has its own
// subpath (`svckit/core`, `svckit/auth`, ...) so an app loads only what it imports. Every entry names its
// TypeScript source, its compiled JavaScript and its declarations alike.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  exports: Record<string, string | { 'svckit-source': string; types: string; default: string }>;
};

/** The entries the root `svckit` entry is made of: the kernel and every feature. */
const PARTS = [
  'core',
  'auth',
  'tenancy',
  'files',
  'edge',
  'idempotency',
  'stores',
  'mcp',
  'mail',
  'data',
  'service',
] as const;

async function entry(subpath: string): Promise<Record<string, unknown>> {
  const specifier = subpath === '' ? 'svckit' : `svckit/${subpath}`;
  return (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
}

describe('package entries', () => {
  it.each(Object.entries(manifest.exports).filter(([key]) => key !== './package.json'))(
    '%s: source, JavaScript and declarations name the same file',
    (_key, target) => {
      if (typeof target === 'string') throw new Error('every entry but package.json has conditions');
      const source = target['svckit-source'];
      expect(existsSync(`${ROOT}${source}`)).toBe(true);
      const compiled = source.replace(/^\.\//, './dist/').replace(/\.ts$/, '');
      expect(target).toEqual({
        'svckit-source': source,
        types: `${compiled}.d.ts`,
        default: `${compiled}.js`,
      });
    },
  );

  it('offers each feature under its own subpath', () => {
    for (const part of [...PARTS, 'mcp-client']) expect(manifest.exports[`./${part}`]).toBeDefined();
  });

  it('the root entry is exactly the kernel and the features, the same objects', async () => {
    const root = await entry('');
    const union = new Map<string, unknown>();
    for (const part of PARTS)
      for (const [name, value] of Object.entries(await entry(part))) union.set(name, value);
    expect(Object.keys(root).sort()).toEqual([...union.keys()].sort());
    for (const [name, value] of union) expect(root[name], name).toBe(value);
  });

  it('svckit/core holds no feature', async () => {
    const core = await entry('core');
    for (const name of [
      'authModule',
      'edgePlugins',
      'idempotencyPlugin',
      'openStores',
      'mcpPlugin',
      'McpClient',
    ])
      expect(core[name], name).toBeUndefined();
    expect(typeof core.createApp).toBe('function');
    expect(typeof core.serve).toBe('function');
  });

  it('svckit/mcp-client is the client part of svckit/mcp', async () => {
    const mcp = await entry('mcp');
    const client = await entry('mcp-client');
    expect(Object.keys(client).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(client)) expect(mcp[name], name).toBe(value);
    expect(client.mcpPlugin).toBeUndefined();
  });
});
