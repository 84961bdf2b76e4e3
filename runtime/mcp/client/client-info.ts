// The clientInfo McpClient introduces itself with by default: svckit and the installed package's version,
// read once from the nearest package.json named svckit (source and dist sit at different depths).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Implementation } from '../protocol/types.js';

let cached: Implementation | undefined;

function packageVersion(): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let depth = 0; depth < 8; depth++) {
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          name?: unknown;
          version?: unknown;
        };
        if (manifest.name === 'svckit' && typeof manifest.version === 'string') return manifest.version;
      } catch {
        // No (readable) package.json here: keep walking up.
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  } catch {
    // Not loaded from a file (bundled): the version is unknown.
  }
  return '0.0.0';
}

export function defaultClientInfo(): Implementation {
  cached ??= { name: 'svckit', version: packageVersion() };
  return { ...cached };
}
